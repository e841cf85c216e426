import { isFollowUp, keyTerms, retrievalQuery } from './follow-up-query.js';

describe('the retrieval query of a follow-up', () => {
  const history = [
    { role: 'user' as const, content: 'What does the createStore function return?' },
    { role: 'assistant' as const, content: 'It returns a store object [1].' },
  ];

  it('adds the previous question’s key terms to a short follow-up that leans on a pronoun', () => {
    const query = retrievalQuery('and how do I configure it?', history);
    expect(query.startsWith('and how do I configure it?')).toBe(true);
    expect(query).toContain('createStore');
    expect(query).toContain('return');
  });

  it('searches a self-contained new question as it is', () => {
    const question = 'Which middleware handles asynchronous side effects in large applications?';
    expect(retrievalQuery(question, history)).toBe(question);
  });

  it('leaves the first question of a conversation alone', () => {
    expect(retrievalQuery('and what about it?', [])).toBe('and what about it?');
  });

  it('does not repeat terms the follow-up already has', () => {
    const query = retrievalQuery('createStore options?', history);
    expect(query.match(/createStore/g)).toHaveLength(1);
  });

  it('keeps identifiers whole and drops filler words when picking key terms', () => {
    expect(keyTerms('How do I use the combineReducers helper with redux-toolkit?')).toEqual(['combineReducers', 'helper', 'redux-toolkit']);
  });

  it('judges length, continuation words and pronouns when deciding what is a follow-up', () => {
    expect(isFollowUp('why?')).toBe(true);
    expect(isFollowUp('Also, can the state be serialised when the page reloads?')).toBe(true);
    expect(isFollowUp('Can the state of the whole application be serialised when the page reloads?')).toBe(false);
  });
});
