import type { ReactNode } from "react";

/** Nothing to show: says why and what to do next. */
export function EmptyState({
  title,
  children,
  action,
}: {
  title: string;
  children?: ReactNode;
  action?: ReactNode;
}) {
  return (
    <div className="state" data-testid="empty-state">
      <h2>{title}</h2>
      {children && <p className="muted">{children}</p>}
      {action}
    </div>
  );
}

/** Something failed: the fixed, secret-free message main sent, and a retry. */
export function ErrorState({
  title = "Could not load this view",
  message,
  onRetry,
}: {
  title?: string;
  message: string;
  onRetry?: () => void;
}) {
  return (
    <div className="state state-error" role="alert" data-testid="error-state">
      <h2>{title}</h2>
      <p className="text-wrap">{message}</p>
      {onRetry && (
        <button type="button" className="btn" onClick={onRetry} data-testid="retry">
          Retry
        </button>
      )}
    </div>
  );
}

export function Skeleton({ width = "100%", height = 12 }: { width?: number | string; height?: number }) {
  return <div className="skeleton" style={{ width, height }} aria-hidden="true" />;
}

/** A few rows of shimmering placeholders while the first data loads. */
export function SkeletonRows({ rows = 8 }: { rows?: number }) {
  return (
    <div
      style={{ display: "grid", gap: 12, padding: 16 }}
      role="status"
      aria-busy="true"
      aria-label="Loading"
      data-testid="skeleton"
    >
      {Array.from({ length: rows }, (_, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: placeholders have no identity
        <Skeleton key={index} width={`${70 + ((index * 13) % 30)}%`} />
      ))}
    </div>
  );
}
