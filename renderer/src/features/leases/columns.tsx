import { type ColumnDef, createColumnHelper } from "@tanstack/react-table";
import { Badge, HeadlineBadge } from "../../components/Badge";
import { CopyButton } from "../../components/CopyButton";
import { RelativeTime } from "../../components/RelativeTime";
import { Text } from "../../components/Text";
import { originHost } from "../../lib/format";
import { type LeaseRowView, reasonCodes, UNCERTAIN_PROVIDER } from "./row-model";
import type { ColumnId } from "./sort-rows";

const column = createColumnHelper<LeaseRowView>();

/** Lease statuses Paperclip defines; anything else (a fork's value) is shown verbatim and marked. */
const KNOWN_STATUSES = new Set(["active", "released", "expired", "failed", "retained", "pending_cleanup"]);

function ProviderState({ row }: { row: LeaseRowView }) {
  const uncertain = UNCERTAIN_PROVIDER.includes(row.provider);
  return (
    <span
      className={`provider-state${uncertain ? " provider-uncertain" : ""}${row.provider === "gone" ? " provider-gone" : ""}`}
      data-testid="provider-state"
      title={row.unknownReason ? `could not ask CreateOS: ${row.unknownReason}` : undefined}
    >
      {row.provider}
    </span>
  );
}

/**
 * The table's columns. Cells are pure functions of the row; the checkbox and the actions are drawn by
 * the row itself because they depend on selection, which is UI state.
 */
export const leaseColumns: ColumnDef<LeaseRowView, unknown>[] = [
  column.display({
    id: "headline" satisfies ColumnId,
    header: "Headline",
    size: 96,
    cell: ({ row }) => <HeadlineBadge headline={row.original.headline} />,
  }),
  column.display({
    id: "leaseId" satisfies ColumnId,
    header: "Lease",
    size: 150,
    cell: ({ row }) => <Text value={row.original.leaseId} mono />,
  }),
  column.display({
    id: "sandboxId" satisfies ColumnId,
    header: "Sandbox",
    size: 200,
    cell: ({ row }) =>
      row.original.sandboxId ? (
        <span className="cell-with-action">
          <Text value={row.original.sandboxId} mono testId="sandbox-id" />
          <CopyButton value={row.original.sandboxId} label="Copy sandbox id" />
        </span>
      ) : (
        <span className="muted">none</span>
      ),
  }),
  column.display({
    id: "environment" satisfies ColumnId,
    header: "Environment",
    size: 170,
    cell: ({ row }) => (
      <Text
        value={row.original.environmentName}
        placeholder={row.original.environmentKnown ? "—" : "(environment not listed)"}
      />
    ),
  }),
  column.display({
    id: "company" satisfies ColumnId,
    header: "Company",
    size: 120,
    cell: ({ row }) => <Text value={row.original.companyId} mono />,
  }),
  column.display({
    id: "status" satisfies ColumnId,
    header: "Row status",
    size: 120,
    cell: ({ row }) =>
      KNOWN_STATUSES.has(row.original.status) ? (
        <Text value={row.original.status} />
      ) : (
        <Badge
          tone="neutral"
          plain
          label={row.original.status || "(empty)"}
          title="A status Paperclip does not define"
        />
      ),
  }),
  column.display({
    id: "provider" satisfies ColumnId,
    header: "Provider",
    size: 110,
    cell: ({ row }) => <ProviderState row={row.original} />,
  }),
  column.display({
    id: "origin" satisfies ColumnId,
    header: "Origin",
    size: 160,
    cell: ({ row }) => <Text value={originHost(row.original.origin)} />,
  }),
  column.display({
    id: "policy" satisfies ColumnId,
    header: "Policy",
    size: 150,
    cell: ({ row }) => <Text value={row.original.leasePolicy} />,
  }),
  column.display({
    id: "acquired" satisfies ColumnId,
    header: "Acquired",
    size: 96,
    cell: ({ row }) => <RelativeTime atMs={row.original.acquiredAtMs} />,
  }),
  column.display({
    id: "lastUsed" satisfies ColumnId,
    header: "Last used",
    size: 96,
    cell: ({ row }) => <RelativeTime atMs={row.original.lastUsedAtMs} />,
  }),
  column.display({
    id: "reasons" satisfies ColumnId,
    header: "Reasons",
    size: 220,
    cell: ({ row }) => <Text value={reasonCodes(row.original).join(", ")} placeholder="" />,
  }),
];
