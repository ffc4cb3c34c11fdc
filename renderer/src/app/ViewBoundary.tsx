import { Component, type ReactNode } from "react";
import { ErrorState } from "../components/States";

interface ViewBoundaryProps {
  /** The view's name, said in the failure's title. */
  title: string;
  children: ReactNode;
}

interface ViewBoundaryState {
  error: Error | null;
}

/**
 * A view that fails to load or to render says so in its own place, and the sidebar, the status bar and
 * every other view keep working. A view's code is fetched when it is first opened, so its fetch can fail
 * (a host restarted on a newer build no longer serves the old file names): a reload asks for the page
 * the host serves now.
 */
export class ViewBoundary extends Component<ViewBoundaryProps, ViewBoundaryState> {
  override state: ViewBoundaryState = { error: null };

  static getDerivedStateFromError(error: unknown): ViewBoundaryState {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override render() {
    if (this.state.error === null) return this.props.children;
    return (
      <ErrorState
        title={`Could not show ${this.props.title}`}
        message={`${this.state.error.message} Reloading the page loads it again.`}
        onRetry={() => window.location.reload()}
      />
    );
  }
}
