import type { ReactNode } from "react";
import { CopyButton } from "../../components/CopyButton";
import { useUi } from "../../state/ui-store";
import { environmentKey } from "../leases/row-model";
import type { NameTarget } from "./mismatches";

/** A name that filters the console to it: an environment in the sidebar, or a company in the search. */
export function NameLink({ target, children }: { target: NameTarget; children: ReactNode }) {
  const setScope = useUi((state) => state.setScope);
  const setSearch = useUi((state) => state.setSearch);
  const onClick = () => {
    if (target.kind === "environment") {
      setScope({
        kind: "environment",
        key: environmentKey(target.sourceId, target.environmentId),
        name: target.name,
      });
    } else {
      setScope({ kind: "all" });
      setSearch(target.companyId);
    }
  };
  const title =
    target.kind === "environment"
      ? `Show the leases of environment ${target.name} (${target.environmentId})`
      : `Show the leases of company ${target.name ?? target.companyId}`;
  return (
    <button type="button" className="link name-link" title={title} onClick={onClick} data-testid="name-link">
      {children}
    </button>
  );
}

/**
 * An environment or company the drawer speaks of, inside a sentence: its name (the id alone where no
 * source named it), the id on hover, a link that filters to its rows, and a button that copies the id.
 */
export function NamedRef({ target, id }: { target: NameTarget | null; id: string }) {
  const name = target?.name ?? null;
  const shown = name ? (
    <strong title={id}>{name}</strong>
  ) : (
    <bdi className="mono whole-value" title={id}>
      {id}
    </bdi>
  );
  return (
    <span className="named-ref" data-testid="named-ref" data-id={id}>
      {target ? <NameLink target={target}>{shown}</NameLink> : shown}
      <CopyButton value={id} label="Copy id" />
    </span>
  );
}
