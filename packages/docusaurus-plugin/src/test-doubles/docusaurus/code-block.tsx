// Test double of the site's @theme/CodeBlock: shows the code as text, tagged with its language
// and the colour mode it was given; like the real one, it needs a ColorModeProvider above it.
import type { ReactNode } from 'react';
import { useColorMode } from '@docusaurus/theme-common';

export default function CodeBlock({ children, language }: { children: string; language?: string }): ReactNode {
  const { colorMode } = useColorMode();
  // Stands for any render error inside the panel (a theme component that throws), for the error boundary tests.
  if (language === 'fail-to-render') throw new Error('CodeBlock double: asked to fail');
  return (
    <pre data-testid="site-code-block" data-language={language ?? ''} data-color-mode={colorMode}>
      <code>{children}</code>
    </pre>
  );
}
