import type { LeaseDetail } from "../../../../shared/contract";
import { RelativeTime } from "../../components/RelativeTime";
import { Text } from "../../components/Text";
import { parseTime } from "../../lib/format";

function Time({ value }: { value: string | null }) {
  return value ? <RelativeTime atMs={parseTime(value)} /> : <span className="muted">—</span>;
}

/** The row exactly as Paperclip stores it: status, cleanup, failure reason, run, and its times. */
export function PaperclipFields({ row, sourceId }: { row: LeaseDetail["row"]; sourceId: string }) {
  return (
    <dl className="kv" data-testid="paperclip-fields">
      <dt>Status</dt>
      <dd>
        <Text value={row.status} mono />
      </dd>
      <dt>Lease policy</dt>
      <dd>
        <Text value={row.leasePolicy} mono />
      </dd>
      <dt>Cleanup status</dt>
      <dd>
        <Text value={row.cleanupStatus} mono />
      </dd>
      <dt>Failure reason</dt>
      <dd>
        {row.failureReason ? (
          <div className="text-wrap">{row.failureReason}</div>
        ) : (
          <span className="muted">—</span>
        )}
      </dd>
      <dt>Heartbeat run</dt>
      <dd>
        <Text value={row.heartbeatRunId} mono placeholder="none" />
      </dd>
      <dt>Workspace / issue</dt>
      <dd>
        <Text value={row.executionWorkspaceId} mono /> / <Text value={row.issueId} mono />
      </dd>
      <dt>Provider</dt>
      <dd>
        <Text value={row.provider} mono />
      </dd>
      <dt>Acquired</dt>
      <dd>
        <Time value={row.acquiredAt} />
      </dd>
      <dt>Last used</dt>
      <dd>
        <Time value={row.lastUsedAt} />
      </dd>
      <dt>Released</dt>
      <dd>
        <Time value={row.releasedAt} />
      </dd>
      <dt>Expires</dt>
      <dd>
        <Time value={row.expiresAt} />
      </dd>
      <dt>Source</dt>
      <dd>
        <Text value={sourceId} mono />
      </dd>
    </dl>
  );
}
