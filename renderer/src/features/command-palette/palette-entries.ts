import type { InventoryView, LeaseRowView } from "../../../../shared/contract";
import type { ActionSelection } from "../../../../shared/domain/actions";
import { type ActionKind, HEADLINES, type Headline } from "../../../../shared/domain/codes";
import type { Scope, ThemeChoice, View } from "../../state/ui-store";
import { environmentKey } from "../leases/row-model";

/**
 * What the command palette can find: actions, environments, companies, leases (by lease or sandbox id)
 * and places to go, each with the words it is found by. Pure: the palette turns a chosen entry's
 * `command` into an effect, so ranking can be tested without a screen.
 */

export type PaletteCommand =
  | { kind: "plan"; action: ActionKind; selection: ActionSelection; label: string; sandboxId: string | null }
  | { kind: "open-lease"; leaseId: string }
  | { kind: "scope"; scope: Scope }
  | { kind: "company"; companyId: string }
  | { kind: "view"; view: View }
  | { kind: "toggle-filter"; headline: Headline }
  | { kind: "clear-filters" }
  | { kind: "refresh" }
  | { kind: "theme"; theme: ThemeChoice }
  | { kind: "shortcuts" };

export type PaletteGroup = "action" | "lease" | "environment" | "company" | "filter" | "go to" | "app";

export interface PaletteEntry {
  /** Unique among entries; also the list item's value. */
  key: string;
  group: PaletteGroup;
  label: string;
  /** A second, muted line: the sandbox and environment of a lease, the id behind a name. */
  detail?: string;
  /** Ids and names matched whole or by prefix, besides the label's words. */
  terms: readonly string[];
  command: PaletteCommand;
  /** Why the entry is listed but cannot be chosen. */
  disabled?: string;
}

/** Headlines worth acting on in bulk, with the actions an environment's palette entry offers for them. */
const BULK_ACTIONS: ReadonlyArray<[ActionKind, Headline]> = [
  ["destroy", "stale"],
  ["release", "leaking"],
  ["destroy", "leaking"],
];

const ACTION_WORDS: Record<ActionKind, string> = { release: "Release", destroy: "Destroy" };

export function environmentEntries(view: InventoryView): PaletteEntry[] {
  const entries: PaletteEntry[] = [];
  const seen = new Set<string>();
  for (const environment of view.environments) {
    const key = environmentKey(environment.sourceId, environment.environmentId);
    if (seen.has(key)) continue;
    seen.add(key);
    const name = environment.name || environment.environmentId || "(unnamed environment)";
    entries.push({
      key: `environment ${key}`,
      group: "environment",
      label: name,
      ...(environment.environmentId && environment.environmentId !== name
        ? { detail: environment.environmentId }
        : {}),
      terms: [name, environment.environmentId ?? ""].filter(Boolean),
      command: { kind: "scope", scope: { kind: "environment", key, name: environment.name } },
    });
    if (!environment.environmentId) continue;
    for (const [action, headline] of BULK_ACTIONS) {
      const count = environment.counts[headline] ?? 0;
      if (count === 0) continue;
      const label = `${ACTION_WORDS[action]} ${headline} in ${name}`;
      entries.push({
        key: `plan ${action} ${headline} ${key}`,
        group: "action",
        label,
        detail: `${count} ${headline} lease${count === 1 ? "" : "s"}`,
        // Found by its label's words; its environment's name and id are the environment entry's own.
        terms: [],
        command: {
          kind: "plan",
          action,
          selection: { kind: "headline", headlines: [headline], environmentIds: [environment.environmentId] },
          label: `${headline} leases in ${name}`,
          sandboxId: null,
        },
      });
    }
  }
  return entries;
}

export function companyEntries(view: InventoryView): PaletteEntry[] {
  return view.companies.map((companyId) => ({
    key: `company ${companyId}`,
    group: "company" as const,
    label: `Leases of company ${companyId}`,
    terms: [companyId],
    command: { kind: "company" as const, companyId },
  }));
}

export function leaseEntries(rows: readonly LeaseRowView[]): PaletteEntry[] {
  return rows.map((row) => ({
    key: `lease ${row.sourceId} ${row.leaseId}`,
    group: "lease" as const,
    label: `Lease ${row.leaseId}`,
    detail: [row.sandboxId ? `sandbox ${row.sandboxId}` : "no sandbox", row.environmentName, row.headline]
      .filter(Boolean)
      .join(" · "),
    terms: [row.leaseId, row.sandboxId ?? ""].filter(Boolean),
    command: { kind: "open-lease" as const, leaseId: row.leaseId },
  }));
}

export function placeEntries(): PaletteEntry[] {
  const go = (view: View, label: string, words: string[]): PaletteEntry => ({
    key: `view ${view}`,
    group: "go to",
    label,
    terms: words,
    command: { kind: "view", view },
  });
  return [
    {
      key: "scope all",
      group: "go to",
      label: "All environments",
      terms: ["leases"],
      command: { kind: "scope", scope: { kind: "all" } },
    },
    go("pictures", "Pictures", ["charts"]),
    go("quarantines", "Quarantines", ["paused", "countdown"]),
    go("janitor", "Janitor", ["policy", "watch", "dry run"]),
    go("audit", "Audit log", ["history"]),
    go("settings", "Settings", ["credentials", "sources", "keys"]),
    ...HEADLINES.map(
      (headline): PaletteEntry => ({
        key: `filter ${headline}`,
        group: "filter",
        label: `Toggle filter: ${headline}`,
        terms: [headline],
        command: { kind: "toggle-filter", headline },
      }),
    ),
    {
      key: "clear filters",
      group: "filter",
      label: "Clear filters",
      terms: [],
      command: { kind: "clear-filters" },
    },
    { key: "refresh", group: "app", label: "Refresh inventory", terms: [], command: { kind: "refresh" } },
    {
      key: "shortcuts",
      group: "app",
      label: "Keyboard shortcuts",
      terms: ["help", "keys", "?"],
      command: { kind: "shortcuts" },
    },
    ...(["light", "dark", "system"] as const).map(
      (theme): PaletteEntry => ({
        key: `theme ${theme}`,
        group: "app",
        label: theme === "system" ? "Theme: follow the system" : `Theme: ${theme}`,
        terms: [],
        command: { kind: "theme", theme },
      }),
    ),
  ];
}

/** Groups in the order they are listed when two entries match equally well. */
const GROUP_ORDER: readonly PaletteGroup[] = [
  "action",
  "filter",
  "lease",
  "environment",
  "company",
  "go to",
  "app",
];

/** Groups shown before anything is typed; leases and companies appear only when searched for. */
const BROWSE_GROUPS: ReadonlySet<PaletteGroup> = new Set(["action", "go to", "filter", "app", "environment"]);

/**
 * How well an entry matches: a whole id or name (an exact match) beats a prefix, which beats every query
 * word starting a word of the label, which beats a substring. 0 leaves it out.
 */
export function matchScore(entry: PaletteEntry, query: string): number {
  const q = query.trim().toLowerCase();
  if (q === "") return 1;
  const label = entry.label.toLowerCase();
  const terms = entry.terms.map((term) => term.toLowerCase());
  if (label === q || terms.includes(q)) return 100;
  if (label.startsWith(q) || terms.some((term) => term.startsWith(q))) return 60;
  const words = [...label.split(/[\s·:,]+/), ...terms.flatMap((term) => term.split(/[\s·:,]+/))].filter(
    Boolean,
  );
  const queryWords = q.split(/\s+/);
  if (queryWords.every((part) => words.some((word) => word.startsWith(part)))) return 40;
  if (label.includes(q) || terms.some((term) => term.includes(q))) return 20;
  return 0;
}

/** The entries to list for a query, best first; at most `perGroup` of any one group. */
export function rankEntries(entries: readonly PaletteEntry[], query: string, perGroup = 25): PaletteEntry[] {
  const browsing = query.trim() === "";
  const scored: Array<{ entry: PaletteEntry; score: number; at: number }> = [];
  entries.forEach((entry, at) => {
    if (browsing && !BROWSE_GROUPS.has(entry.group)) return;
    const score = matchScore(entry, query);
    if (score > 0) scored.push({ entry, score, at });
  });
  scored.sort(
    (a, b) =>
      b.score - a.score ||
      GROUP_ORDER.indexOf(a.entry.group) - GROUP_ORDER.indexOf(b.entry.group) ||
      a.at - b.at,
  );
  const taken = new Map<PaletteGroup, number>();
  const ranked: PaletteEntry[] = [];
  for (const { entry } of scored) {
    const count = taken.get(entry.group) ?? 0;
    if (count >= perGroup) continue;
    taken.set(entry.group, count + 1);
    ranked.push(entry);
  }
  return safeFirst(ranked, query);
}

/**
 * The first entry is the one Enter chooses, so it is never a destructive one (a plan) unless the query
 * names its action in full ("release selected"): otherwise the first entry that is neither destructive
 * nor disabled moves to the top, and the rest keep their order.
 */
function safeFirst(ranked: PaletteEntry[], query: string): PaletteEntry[] {
  const words = new Set(query.trim().toLowerCase().split(/\s+/));
  const choosable = (entry: PaletteEntry) => entry.disabled === undefined;
  const safe = (entry: PaletteEntry) => entry.command.kind !== "plan" || words.has(entry.command.action);
  const first = ranked.find(choosable);
  if (first === undefined || safe(first)) return ranked;
  const at = ranked.findIndex((entry) => choosable(entry) && safe(entry));
  if (at < 0) return ranked;
  return [ranked[at]!, ...ranked.slice(0, at), ...ranked.slice(at + 1)];
}
