/**
 * The code themes of docs-site: prism-react-renderer's GitHub (light) and Dracula (dark)
 * themes with every token colour that fails WCAG AA on the code background replaced by a
 * darker (light theme) or lighter (dark theme) shade of the same hue. Answers with code bring
 * these colours into the chat panel too. The Docusaurus website does the same with themes of
 * its own; prism-themes.test.ts checks every colour against 4.5:1 on the code background and
 * on a highlighted line.
 */
import { themes, type PrismTheme } from 'prism-react-renderer';

type TokenStyle = PrismTheme['styles'][number];

/** The theme with the given colours swapped: `{ '#36acaa': '#0f6b69' }`. */
function withColours(theme: PrismTheme, replacements: Record<string, string>, extraStyles: TokenStyle[] = []): PrismTheme {
  const swap = (colour: string | undefined): string | undefined =>
    colour === undefined ? undefined : (replacements[colour.toLowerCase()] ?? colour);
  return {
    plain: { ...theme.plain, color: swap(theme.plain.color) },
    styles: [
      ...theme.styles.map((style) => ({
        ...style,
        style: { ...style.style, ...(style.style.color ? { color: swap(style.style.color) } : {}) },
      })),
      ...extraStyles,
    ],
  };
}

export const lightCodeTheme: PrismTheme = withColours(
  themes.github,
  {
    '#999988': '#646457', // comments: 2.7:1 -> 5.6:1
    '#e3116c': '#b3135c', // strings: 4.3:1 -> 6.2:1
    '#36acaa': '#0f6b69', // numbers, variables, constants: 2.6:1 -> 5.9:1
    '#00a4db': '#006a93', // keywords, attribute names: 2.7:1 -> 5.7:1
    '#d73a49': '#b62433', // functions, tags: 4.3:1 -> 6.0:1
  },
  // GitHub's theme dims namespaces with opacity, which lowers their contrast below AA.
  [{ types: ['namespace'], style: { opacity: 1 } }],
);

export const darkCodeTheme: PrismTheme = withColours(themes.dracula, {
  'rgb(98, 114, 164)': '#9aa5ce', // comments: 3.0:1 -> 5.9:1
  'rgb(255, 85, 85)': '#ff6e6e', // deleted lines: 4.5:1 (just) -> 5.2:1
});
