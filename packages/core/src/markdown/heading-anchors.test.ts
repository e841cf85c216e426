import { createHeadingSlugger, headingIdFromComment, parseCustomHeadingId } from './heading-anchors.js';

describe('heading anchors', () => {
  it('suffixes repeated headings -1, -2 across case differences, like a built Docusaurus page', () => {
    const slugger = createHeadingSlugger();
    expect(['Further Reading', 'Further Reading', 'Further reading'].map((text) => slugger.slug(text))).toEqual([
      'further-reading',
      'further-reading-1',
      'further-reading-2',
    ]);
  });

  it('drops emoji and punctuation but keeps the hyphen the emoji leaves behind', () => {
    expect(createHeadingSlugger().slug('🐞 "Simple" Bugs')).toBe('-simple-bugs');
  });

  it('splits an explicit {#id} off the visible heading text', () => {
    expect(parseCustomHeadingId('Install it {#setup-step}')).toEqual({ text: 'Install it', id: 'setup-step' });
    expect(parseCustomHeadingId('No id here')).toEqual({ text: 'No id here', id: undefined });
  });

  it('reads an id from a comment only when it starts with #', () => {
    expect(headingIdFromComment(' #from-comment ')).toBe('from-comment');
    expect(headingIdFromComment(' just a remark ')).toBeUndefined();
  });
});
