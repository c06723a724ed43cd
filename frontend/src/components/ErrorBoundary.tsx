import { Component, type ReactNode } from 'react';

/** Keeps one broken view from blanking the page: shows the error in its place. */
export class ErrorBoundary extends Component<{ children: ReactNode; what: string }, { error: Error | null }> {
  override state = { error: null as Error | null };
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  override render() {
    if (this.state.error)
      return (
        <div className="error-box" role="alert">
          <strong>{this.props.what} failed to draw: </strong>
          {this.state.error.message}
        </div>
      );
    return this.props.children;
  }
}
