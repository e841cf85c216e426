import { detectSmallTalk, smallTalkReply } from './small-talk.js';

describe('small talk', () => {
  it('recognises greetings, thanks and goodbyes written in many ways', () => {
    expect(detectSmallTalk('Hi!')).toBe('greeting');
    expect(detectSmallTalk('  hello there ')).toBe('greeting');
    expect(detectSmallTalk('Good morning')).toBe('greeting');
    expect(detectSmallTalk('Thanks a lot!')).toBe('thanks');
    expect(detectSmallTalk('ok thanks')).toBe('thanks');
    expect(detectSmallTalk('Thank you for your help 🙏')).toBe('thanks');
    expect(detectSmallTalk("That's all for now")).toBe('goodbye');
    expect(detectSmallTalk('bye')).toBe('goodbye');
  });

  it('treats a greeting followed by a question as a question', () => {
    expect(detectSmallTalk('hi, how do I configure the store?')).toBeNull();
    expect(detectSmallTalk('thanks, and what about middleware?')).toBeNull();
    expect(detectSmallTalk('history')).toBeNull();
    expect(detectSmallTalk('')).toBeNull();
  });

  it('answers each kind with a friendly sentence that invites a docs question', () => {
    expect(smallTalkReply('greeting')).toMatch(/documentation/);
    expect(smallTalkReply('thanks')).toMatch(/welcome/i);
    expect(smallTalkReply('goodbye')).toMatch(/Goodbye/);
  });
});
