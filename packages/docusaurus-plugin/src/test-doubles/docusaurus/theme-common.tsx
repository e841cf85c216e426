// Test double of @docusaurus/theme-common's colour mode context: like the real one, the
// hook throws outside its provider, and the provider takes the mode from <html data-theme>.
import { createContext, useContext, useState, type ReactNode } from 'react';

const ColorModeContext = createContext<{ colorMode: 'light' | 'dark' } | undefined>(undefined);

export function ColorModeProvider({ children }: { children: ReactNode }): ReactNode {
  const [colorMode] = useState<'light' | 'dark'>(() => (document.documentElement.getAttribute('data-theme') === 'dark' ? 'dark' : 'light'));
  return <ColorModeContext.Provider value={{ colorMode }}>{children}</ColorModeContext.Provider>;
}

export function useColorMode(): { colorMode: 'light' | 'dark' } {
  const value = useContext(ColorModeContext);
  if (value === undefined) throw new Error('Hook useColorMode is called outside the <ColorModeProvider>.');
  return value;
}
