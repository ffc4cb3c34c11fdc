import type { LeaseDetail } from "../../../../shared/contract";
import { RelativeTime } from "../../components/RelativeTime";
import { Text } from "../../components/Text";
import { formatMemory, parseTime } from "../../lib/format";

const ORIGIN_FROM: Record<LeaseDetail["provider"]["originFrom"], string> = {
  "lease-metadata": "the lease's recorded API URL",
  environment: "the environment's API URL, because the lease's metadata names none",
  none: "no origin: there was nowhere to ask",
};

/** What CreateOS said about the sandbox, and how we know: which origin, which credential, when. */
export function ProviderEvidence({ provider }: { provider: LeaseDetail["provider"] }) {
  return (
    <dl className="kv" data-testid="provider-evidence">
      <dt>State</dt>
      <dd>
        <span className="provider-state" data-testid="detail-provider-state">
          {provider.code}
        </span>
        {provider.rawStatus && provider.rawStatus !== provider.code && (
          <span className="muted">
            {" "}
            (CreateOS says <Text value={provider.rawStatus} mono />)
          </span>
        )}
      </dd>
      {provider.unknownReason && (
        <>
          <dt>Why unknown</dt>
          <dd>
            <span className="mono">{provider.unknownReason}</span>
            <span className="muted"> — an unknown state is never treated as gone.</span>
          </dd>
        </>
      )}
      <dt>Asked at</dt>
      <dd>
        <Text value={provider.origin} mono placeholder="—" />
        <div className="muted">{ORIGIN_FROM[provider.originFrom]}</div>
      </dd>
      <dt>Seen by credential</dt>
      <dd>
        <Text value={provider.credential} mono placeholder="no credential listed it" />
      </dd>
      <dt>Observed</dt>
      <dd>{provider.observedAt ? <RelativeTime atMs={parseTime(provider.observedAt)} /> : "—"}</dd>
      <dt>Shape</dt>
      <dd>
        <Text value={provider.shape} mono />
        {provider.vcpu !== null && (
          <span className="muted">
            {" "}
            · {provider.vcpu} vCPU · {formatMemory(provider.memMib ?? 0)}
          </span>
        )}
      </dd>
      <dt>Rootfs / region</dt>
      <dd>
        <Text value={[provider.rootfs ?? "—", provider.region ?? "—"].join(" / ")} mono />
      </dd>
      <dt>Created at CreateOS</dt>
      <dd>{provider.createdAt ? <RelativeTime atMs={parseTime(provider.createdAt)} /> : "—"}</dd>
    </dl>
  );
}
