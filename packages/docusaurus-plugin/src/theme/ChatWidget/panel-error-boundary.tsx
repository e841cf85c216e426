import { Component, type ErrorInfo, type ReactNode } from 'react';

export interface PanelErrorBoundaryProps {
  readonly children: ReactNode;
  /** What to show instead of the panel; `reset` renders the children again from scratch. */
  readonly fallback: (reset: () => void) => ReactNode;
}

interface State {
  readonly failed: boolean;
}

/**
 * Keeps a render error in the panel (or a panel chunk that fails to load) inside
 * the widget: without it React unmounts everything up to Docusaurus' own
 * boundary, and the reader loses the page they were reading.
 */
export default class PanelErrorBoundary extends Component<PanelErrorBoundaryProps, State> {
  override state: State = { failed: false };

  static getDerivedStateFromError(): State {
    return { failed: true };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    // Site owners need the cause; readers only see the short message.
    console.error('docs-chat: the chat panel failed to render', error, info.componentStack);
  }

  private readonly reset = (): void => this.setState({ failed: false });

  override render(): ReactNode {
    return this.state.failed ? this.props.fallback(this.reset) : this.props.children;
  }
}
