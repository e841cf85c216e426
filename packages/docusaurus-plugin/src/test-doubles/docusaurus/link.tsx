// Test double of @docusaurus/Link: navigates like the router does (history.pushState, no reload)
// so tests can see that sources move the reader within the site.
import type { AnchorHTMLAttributes, MouseEvent, ReactNode } from 'react';

export interface Props extends AnchorHTMLAttributes<HTMLAnchorElement> {
  to?: string;
  href?: string;
}

export default function Link({ to, href, children, onClick, ...rest }: Props): ReactNode {
  const target = to ?? href ?? '#';
  const handleClick = (event: MouseEvent<HTMLAnchorElement>): void => {
    onClick?.(event);
    if (event.defaultPrevented) return;
    event.preventDefault();
    window.history.pushState({}, '', target);
  };
  return (
    <a {...rest} href={target} data-router-link="" onClick={handleClick}>
      {children}
    </a>
  );
}
