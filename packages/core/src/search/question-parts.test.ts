import { condenseQuestion, splitQuestion } from './question-parts.js';

const stackTrace = Array.from({ length: 60 }, (_, index) => `    at renderWithHooks (react-dom.development.js:${14000 + index}:18)`).join(
  '\n',
);
const pastedQuestion = `The checkout page crashes after I dispatch from a reducer. The console prints:

Error: Reducers may not dispatch actions.
${stackTrace}

\`\`\`js
function cartReducer(state = initialState, action) {
  store.dispatch({ type: 'analytics/track' })
  return state
}
\`\`\`

Why is dispatching inside a reducer not allowed, and where should the side effect go?`;

describe('question parts', () => {
  it('tells what a question asks from the stack trace and code pasted into it', () => {
    const parts = splitQuestion(pastedQuestion);
    expect(parts.asked).toContain('Why is dispatching inside a reducer not allowed');
    expect(parts.asked).not.toContain('renderWithHooks');
    expect(parts.asked).not.toContain('cartReducer');
    expect(parts.errorLine).toBe('Error: Reducers may not dispatch actions.');
    expect(parts.names).toEqual(expect.arrayContaining(['renderWithHooks', 'cartReducer', 'store.dispatch']));
  });

  it('reads an error message behind the name of the program that printed it as pasted, and says when nothing else was asked', () => {
    const alone = "docs-chat ingest: Error: EACCES: permission denied, open '/data/index/manifest.json'";
    const parts = splitQuestion(alone);
    expect(parts.pasted).toEqual([alone]);
    expect(parts.onlyPasted).toBe(true);
    expect(parts.asked).toBe(alone);
    const asking = splitQuestion(`${alone}\nWhat permissions does the data folder need?`);
    expect(asking.onlyPasted).toBe(false);
    expect(asking.asked).toBe('What permissions does the data folder need?');
    // Prose that merely contains the word stays prose.
    expect(splitQuestion('The build fails with an Error: what should I check first?').onlyPasted).toBe(false);
  });

  it('leaves a question that fits as it is', () => {
    expect(condenseQuestion('How do I add a reducer?', 2000)).toBe('How do I add a reducer?');
  });

  it('condenses a long question to its question sentence, error line and names, within the limit', () => {
    expect(pastedQuestion.length).toBeGreaterThan(3000);
    const condensed = condenseQuestion(pastedQuestion, 2000);
    expect(condensed.length).toBeLessThanOrEqual(2000);
    expect(condensed).toContain('Why is dispatching inside a reducer not allowed, and where should the side effect go?');
    expect(condensed).toContain('Error: Reducers may not dispatch actions.');
    expect(condensed).toContain('cartReducer');
    expect(condensed.match(/renderWithHooks/g)).toHaveLength(1);
  });
});
