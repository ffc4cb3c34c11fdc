import type { Scope, View } from "../state/ui-store";

/** What the top bar and the tab call each view. */
export const TITLES: Record<View, string> = {
  leases: "Leases",
  pictures: "Pictures",
  audit: "Audit log",
  settings: "Settings",
  untracked: "Untracked sandboxes",
  quarantines: "Quarantines",
  janitor: "Janitor",
};

export function viewTitle(view: View, scope: Scope): string {
  if (view !== "leases") return TITLES[view];
  return scope.kind === "environment" ? scope.name || "(unnamed environment)" : "All environments";
}
