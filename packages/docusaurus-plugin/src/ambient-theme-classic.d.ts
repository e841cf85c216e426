// The site's CodeBlock comes from @docusaurus/theme-classic, which this
// package does not depend on; declare just the props we use.
declare module '@theme/CodeBlock' {
  import type { ReactNode } from 'react';
  export interface Props {
    readonly children: string;
    readonly className?: string;
    readonly language?: string;
    readonly title?: ReactNode;
    readonly showLineNumbers?: boolean | number;
  }
  export default function CodeBlock(props: Props): ReactNode;
}

// Also from the theme: the colour mode context CodeBlock reads. Declared here for
// the same reason; the plugin's configureWebpack points both at the theme's copy.
declare module '@docusaurus/theme-common' {
  export function useColorMode(): { readonly colorMode: 'light' | 'dark' };
}
declare module '@docusaurus/theme-common/internal' {
  import type { ReactNode } from 'react';
  export function ColorModeProvider(props: { children: ReactNode }): ReactNode;
}

// The site's page layout (navbar, footer), used by the insights page.
declare module '@theme/Layout' {
  import type { ReactNode } from 'react';
  export interface Props {
    readonly children?: ReactNode;
    readonly title?: string;
    readonly description?: string;
    readonly noFooter?: boolean;
  }
  export default function Layout(props: Props): ReactNode;
}
