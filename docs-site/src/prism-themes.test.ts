import { describe, expect, it } from '@jest/globals';
import type { PrismTheme } from 'prism-react-renderer';
import { darkCodeTheme, lightCodeTheme } from './prism-themes.js';

/** sRGB channels of `#rrggbb` or `rgb(r, g, b)`. */
function channels(colour: string): [number, number, number] {
  const rgb = /^rgb\((\d+),\s*(\d+),\s*(\d+)\)$/.exec(colour.trim());
  if (rgb) return [Number(rgb[1]), Number(rgb[2]), Number(rgb[3])];
  const hex = colour.trim().replace('#', '');
  return [0, 2, 4].map((start) => parseInt(hex.slice(start, start + 2), 16)) as [number, number, number];
}

/** WCAG 2.x relative luminance. */
function luminance(colour: [number, number, number]): number {
  const [red, green, blue] = colour.map((value) => {
    const channel = value / 255;
    return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * red + 0.7152 * green + 0.0722 * blue;
}

function contrast(foreground: [number, number, number], background: [number, number, number]): number {
  const [lighter, darker] = [luminance(foreground), luminance(background)].sort((left, right) => right - left) as [number, number];
  return (lighter + 0.05) / (darker + 0.05);
}

/** The background under `alpha` of black, as docs-site's highlighted lines draw it (custom.css). */
function darkened(background: [number, number, number], alpha: number): [number, number, number] {
  return background.map((value) => Math.round(value * (1 - alpha))) as [number, number, number];
}

function failures(theme: PrismTheme, highlightAlpha: number): string[] {
  const background = channels(theme.plain.backgroundColor ?? '#ffffff');
  const colours = [theme.plain.color, ...theme.styles.map((style) => style.style.color)].filter(
    (colour): colour is string => typeof colour === 'string',
  );
  return colours.flatMap((colour) =>
    [background, darkened(background, highlightAlpha)]
      .map((under) => contrast(channels(colour), under))
      .filter((ratio) => ratio < 4.5)
      .map((ratio) => `${colour} at ${ratio.toFixed(2)}:1`),
  );
}

describe("docs-site's code themes", () => {
  it('give every light token colour at least 4.5:1 on the code background and on a highlighted line', () => {
    expect(failures(lightCodeTheme, 0.08)).toEqual([]);
  });

  it('give every dark token colour at least 4.5:1 on the code background and on a highlighted line', () => {
    expect(failures(darkCodeTheme, 0.3)).toEqual([]);
  });

  it('dim no token type with opacity, which would lower its contrast', () => {
    const dimmed = (theme: PrismTheme): string[] => {
      // prism-react-renderer merges a token's rules in order: the last opacity given for a type wins.
      const opacity = new Map<string, number>();
      for (const style of theme.styles)
        if (style.style.opacity !== undefined) for (const type of style.types) opacity.set(type, Number(style.style.opacity));
      return [...opacity].filter(([, value]) => value < 1).map(([type]) => type);
    };
    expect({ light: dimmed(lightCodeTheme), dark: dimmed(darkCodeTheme) }).toEqual({ light: [], dark: [] });
  });
});
