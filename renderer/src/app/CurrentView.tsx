import { type ComponentType, lazy, Suspense } from "react";
import { SkeletonRows } from "../components/States";
import { LeasesView } from "../features/leases/LeasesView";
import { useUi, type View } from "../state/ui-store";
import { ViewBoundary } from "./ViewBoundary";
import { TITLES } from "./view-titles";

/**
 * The lease table is what every start shows, so it is in the page's first script. Every other view is
 * its own file, fetched the first time it is opened: the first screen parses none of their code.
 */
function onDemand<Name extends string>(
  load: () => Promise<Record<Name, ComponentType>>,
  name: Name,
): ComponentType {
  return lazy(async (): Promise<{ default: ComponentType }> => ({ default: (await load())[name] }));
}

const VIEWS: Record<View, ComponentType> = {
  leases: LeasesView,
  untracked: onDemand(() => import("../features/untracked/UntrackedView"), "UntrackedView"),
  pictures: onDemand(() => import("../features/pictures/PicturesView"), "PicturesView"),
  audit: onDemand(() => import("../features/audit/AuditView"), "AuditView"),
  settings: onDemand(() => import("../features/settings/SettingsView"), "SettingsView"),
  quarantines: onDemand(() => import("../features/quarantine/QuarantinesView"), "QuarantinesView"),
  janitor: onDemand(() => import("../features/janitor/JanitorView"), "JanitorView"),
};

export function CurrentView() {
  const view = useUi((state) => state.view);
  const Shown = VIEWS[view];
  return (
    // Keyed by the view, so a view that failed does not keep another from showing.
    <ViewBoundary key={view} title={TITLES[view]}>
      <Suspense fallback={<SkeletonRows />}>
        <Shown />
      </Suspense>
    </ViewBoundary>
  );
}
