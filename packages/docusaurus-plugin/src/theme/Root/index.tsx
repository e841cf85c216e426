import type { ReactNode } from 'react';
import ChatWidget from '@theme/ChatWidget';

export interface Props {
  readonly children: ReactNode;
}

/** Wraps every page: the page first, then the widget so it comes last in the Tab order. */
export default function Root({ children }: Props): ReactNode {
  return (
    <>
      {children}
      <ChatWidget />
    </>
  );
}
