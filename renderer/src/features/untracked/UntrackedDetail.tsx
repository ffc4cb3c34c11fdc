import type { UntrackedSandboxView } from "../../../../shared/contract";
import { CopyButton } from "../../components/CopyButton";
import { RelativeTime } from "../../components/RelativeTime";
import { Text } from "../../components/Text";
import { formatExact, formatMemory, originHost, parseTime } from "../../lib/format";
import { ProveOwnership } from "../markers/ProveOwnership";
import { shapeResources } from "../pictures/aggregate";
import { QuarantineControl } from "../quarantine/QuarantineControl";
import "./untracked.css";

/** The first 8 characters of an id and an ellipsis; the whole id is on hover and copied by its button. */
function shortId(id: string): string {
  return id.length > 12 ? `${id.slice(0, 8)}…` : id;
}

/**
 * One untracked sandbox before it is destroyed: what CreateOS says it is (name, shape, status, age, who
 * created it), which account and origin list it, and whether its workspace marker names a lease. No row
 * names it, so this is all the evidence there is: the operator should not destroy it blind.
 */
export function UntrackedDetail({
  sandbox,
  onClose,
  onDestroy,
}: {
  sandbox: UntrackedSandboxView;
  onClose: () => void;
  onDestroy: () => void;
}) {
  const size =
    sandbox.vcpu !== null && sandbox.memMib !== null
      ? { vcpu: sandbox.vcpu, memMib: sandbox.memMib }
      : shapeResources(sandbox.shape);
  const createdMs = parseTime(sandbox.createdAt);
  return (
    <section className="untracked-detail" data-testid="untracked-detail" aria-label="Untracked sandbox">
      <div className="row-flex" style={{ justifyContent: "space-between", flexWrap: "nowrap" }}>
        <h3 className="section-title" style={{ margin: 0, minWidth: 0 }}>
          <Text value={sandbox.name ?? sandbox.sandboxId} mono={sandbox.name === null} />
        </h3>
        <button type="button" className="icon-btn" aria-label="Close sandbox details" onClick={onClose}>
          ✕
        </button>
      </div>
      <dl className="kv">
        <dt>Sandbox</dt>
        <dd className="row-flex" style={{ flexWrap: "nowrap" }}>
          <Text value={sandbox.sandboxId} mono testId="untracked-detail-id" />
          <CopyButton value={sandbox.sandboxId} label="Copy sandbox id" />
        </dd>
        <dt>Name</dt>
        <dd>
          <Text value={sandbox.name} placeholder="none given" />
        </dd>
        <dt>Status</dt>
        <dd data-testid="untracked-detail-status">
          <Text value={sandbox.status} mono />
        </dd>
        <dt>Shape</dt>
        <dd>
          <Text value={sandbox.shape} mono placeholder="not listed" />
          {size && (
            <span className="muted">
              {" "}
              ({size.vcpu} vCPU · {formatMemory(size.memMib)})
            </span>
          )}
        </dd>
        <dt>Age</dt>
        <dd>
          {createdMs > 0 ? (
            <span title={formatExact(createdMs)}>
              created <RelativeTime atMs={createdMs} />
            </span>
          ) : (
            <span className="muted">CreateOS gave no creation time</span>
          )}
        </dd>
        <dt>Created by</dt>
        <dd data-testid="untracked-detail-created-by">
          {/* CreateOS gives only the identity's id (`created_by`), never a name for it. */}
          {sandbox.createdBy ? (
            <span className="named">
              the CreateOS identity{" "}
              <bdi className="mono" title={`CreateOS identity ${sandbox.createdBy}`}>
                {shortId(sandbox.createdBy)}
              </bdi>
              <CopyButton value={sandbox.createdBy} label="Copy CreateOS identity id" />
            </span>
          ) : (
            <span className="muted">CreateOS does not say</span>
          )}
        </dd>
        <dt>Listed by</dt>
        <dd data-testid="untracked-detail-listed-by">
          account <Text value={sandbox.credential} mono /> at {originHost(sandbox.origin)}
        </dd>
        <dt>Region / rootfs</dt>
        <dd>
          <Text value={sandbox.region} mono /> / <Text value={sandbox.rootfs} mono />
        </dd>
      </dl>
      <div className="untracked-detail-marker">
        <span className="muted">Marker evidence:</span>
        <ProveOwnership
          request={{ kind: "untracked", sandboxId: sandbox.sandboxId, origin: sandbox.origin }}
        />
      </div>
      {/* Keyed by its subject: what was typed or refused for one sandbox stays with that sandbox. */}
      <QuarantineControl
        key={`${sandbox.origin} ${sandbox.sandboxId}`}
        target={{ kind: "untracked", sandboxId: sandbox.sandboxId, origin: sandbox.origin, forced: true }}
      />
      <div className="row-flex">
        <button type="button" className="btn btn-small btn-danger-outline" onClick={onDestroy}>
          Destroy…
        </button>
      </div>
    </section>
  );
}
