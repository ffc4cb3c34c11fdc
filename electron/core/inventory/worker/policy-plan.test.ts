import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ENDED_LEASE_STATUSES,
  HEADLINES,
  KNOWN_LEASE_STATUSES,
  OWNERSHIP_CODES,
  PROVIDER_CODES,
} from "../../../../shared/domain/codes.js";
import type { Inventory } from "../../../../shared/domain/inventory.js";
import {
  candidatesOf,
  type JanitorCandidate,
  leaseStatuses,
  matchSelector,
  type PassPlan,
  type Policy,
  PROOF_SELECTORS,
  planPass,
  policyHeadlines,
  policyRowColumns,
  proofSubjectOf,
  type Rule,
  type Selector,
  selectionContext,
} from "../../../../shared/domain/janitor/index.js";
import {
  MARKER_ANSWERS,
  type MarkerProof,
  markerPrefix,
  recordedMarker,
} from "../../../../shared/domain/marker-proof.js";
import { recordedSandboxId } from "../../../../shared/domain/sandbox-id.js";
import type { PolicyPlanInput } from "./protocol.js";
import { type KeeperOverStore, storedGeneratedWorld } from "./testing/keeper-over-store.js";

const NOW = new Date("2026-11-30T12:00:00Z");

/** The prefix of the marker `row` records, as a proof of a sandbox holding it keeps it; null when none. */
function prefixOf(row: Inventory["leases"][number] | undefined): string | null {
  const marker = row === undefined ? null : recordedMarker(row.lease.metadata);
  return marker === null ? null : markerPrefix(marker);
}

/**
 * The proof a judge would keep for `candidate`, naming `owners` when it found the marker another lease's,
 * over a scan that read every row.
 */
function proofOf(
  candidate: JanitorCandidate,
  answer: MarkerProof["answer"],
  owners: { sourceId: string; leaseId: string; status: string }[],
  prefix: string | null,
): MarkerProof {
  const sandbox =
    candidate.kind === "lease"
      ? { sandboxId: recordedSandboxId(candidate.lease.lease), origin: candidate.lease.provider.origin }
      : { sandboxId: candidate.sandbox.sandboxId, origin: candidate.sandbox.origin };
  return {
    answer,
    reason: null,
    owners:
      answer === "another-lease"
        ? owners.map((owner) => ({ ...owner, relation: "names-this-sandbox" as const }))
        : [],
    markerPrefix: prefix,
    message: "generated",
    subject: proofSubjectOf(candidate),
    ...sandbox,
    sandboxStatus: "running",
    readAt: "2026-11-30T11:00:00.000Z",
    gapMayRecord: false,
  };
}

describe("a janitor's plan of a policy, worked out over the store", () => {
  let held: KeeperOverStore;
  let whole: Inventory;

  beforeAll(async () => {
    ({ held, whole } = await storedGeneratedWorld(1500));
  });
  afterAll(() => held.close());

  const fromStore = async (input: PolicyPlanInput) =>
    (await held.keeper.handle({ type: "policy-plan", input })) as PassPlan;
  /** The plan as it was made before: over every row, each candidate's kept proof. */
  const fromWhole = (input: PolicyPlanInput) =>
    planPass({ ...input, inventory: whole, now: new Date(input.now) });

  it("holds a world with history, rows other environments own and untracked sandboxes, so each case is tried", () => {
    expect(whole.leases.length).toBeGreaterThan(1000);
    expect(whole.environments.length).toBeGreaterThan(1);
    expect(whole.companies.length).toBeGreaterThan(1);
    expect(whole.leases.some((row) => row.verdict.headline === "closed")).toBe(true);
    expect(whole.leases.some((row) => !row.verdict.ownership.includes("owned"))).toBe(true);
    expect(whole.untracked.length).toBeGreaterThan(0);
  });

  it("gives every policy and set of proofs the plan made over every row, keeping only the rows some rule matches", async () => {
    const candidates = candidatesOf(whole);
    const untracked = candidates.filter((candidate) => candidate.kind === "untracked");
    const ended = whole.leases.filter((row) =>
      ENDED_LEASE_STATUSES.some((status) => status === row.lease.status),
    );
    const ownerOf = ({ sourceId, lease }: Inventory["leases"][number]) => ({
      sourceId,
      leaseId: lease.id,
      status: lease.status,
    });
    const owner = fc.oneof(
      fc.constantFrom(...ended).map(ownerOf),
      fc.constantFrom(...whole.leases).map(ownerOf),
      // A lease the store does not hold: a proof naming it proves nothing.
      fc.constant({ sourceId: whole.leases[0]!.sourceId, leaseId: "lease-nowhere", status: "released" }),
    );
    const proof = fc
      .tuple(
        fc.oneof(fc.constantFrom(...untracked), fc.constantFrom(...candidates)),
        fc.constantFrom(...MARKER_ANSWERS),
        fc.array(owner, { minLength: 1, maxLength: 4 }),
      )
      .map(([candidate, answer, owners]) => {
        // The marker of the first owner, so the rows recording it now are read and judged too.
        const first = whole.leases.find(
          (row) => row.sourceId === owners[0]!.sourceId && row.lease.id === owners[0]!.leaseId,
        );
        return proofOf(candidate, answer, owners, prefixOf(first));
      });
    // One or two clauses, so that rules match a fair share of the world and their plans overlap.
    const clauses: fc.Arbitrary<Selector>[] = [
      fc.record({ kind: fc.constantFrom("lease" as const, "untracked" as const) }),
      fc.record({ headline: fc.uniqueArray(fc.constantFrom(...HEADLINES), { minLength: 1, maxLength: 3 }) }),
      fc.record({
        ownership: fc.uniqueArray(fc.constantFrom(...OWNERSHIP_CODES), { minLength: 1, maxLength: 3 }),
      }),
      fc.record({
        status: fc.uniqueArray(fc.constantFrom(...KNOWN_LEASE_STATUSES), { minLength: 1, maxLength: 3 }),
      }),
      fc.record({
        provider: fc.uniqueArray(fc.constantFrom(...PROVIDER_CODES), { minLength: 1, maxLength: 3 }),
      }),
      fc.record({
        proof: fc.uniqueArray(fc.constantFrom(...PROOF_SELECTORS), { minLength: 1, maxLength: 3 }),
      }),
      fc.record({ age: fc.constantFrom({ released: "1h" }, { acquired: "2d" }, { created: "30m" }) }),
    ];
    const selector: fc.Arbitrary<Selector> = fc
      .tuple(fc.oneof(...clauses), fc.option(fc.oneof(...clauses), { nil: undefined }))
      .map(([first, second]) => ({ ...first, ...second }));
    const rule: fc.Arbitrary<Omit<Rule, "name">> = fc.record(
      {
        select: selector,
        action: fc.constantFrom("destroy" as const, "release" as const, "quarantine" as const),
        maxPerPass: fc.integer({ min: 1, max: 40 }),
      },
      { requiredKeys: ["select", "action"] },
    );
    const policy: fc.Arbitrary<Omit<Policy, "webhook">> = fc
      .tuple(
        fc.array(rule, { minLength: 1, maxLength: 3 }),
        fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined }),
      )
      .map(([rules, perPass]) => ({
        version: 1 as const,
        operator: "janitor (ada)",
        rules: rules.map((one, index) => ({
          ...one,
          name: `rule-${index}`,
          ...(one.action === "quarantine" ? { quarantineHours: 24 } : {}),
        })),
        ...(perPass === undefined ? {} : { caps: { perPass, perHour: 1000 } }),
      }));

    let proven = 0;
    let kept = 0;
    await fc.assert(
      fc.asyncProperty(policy, fc.array(proof, { maxLength: 60 }), async (chosen, proofs) => {
        const input: PolicyPlanInput = {
          policy: chosen,
          proofs,
          now: NOW.toISOString(),
          history: [],
          quarantines: [],
        };
        const plan = await fromStore(input);
        expect(plan).toEqual(fromWhole(input));
        const items = plan.rules.flatMap((one) => [...one.selected, ...one.skipped]);
        proven += items.filter((item) => item.proof?.proves === true).length;
        kept += items.length;
      }),
      { numRuns: 80, seed: 25 },
    );
    expect(kept, "rows and sandboxes the policies matched").toBeGreaterThan(0);
    expect(proven, "forced destroys a generated proof proved").toBeGreaterThan(0);
  });

  it("gives a policy whose rules name environments, companies, ownership codes or CreateOS's state the plan made over every row", async () => {
    // An environment or a company named by id or by name, or one no row has.
    const environments = [
      ...whole.environments.flatMap((environment) => [environment.environmentId, environment.name]),
      ...whole.leases.flatMap((row) => row.lease.environmentId ?? []).slice(0, 5),
      "no such environment",
    ];
    const companies = [
      ...whole.companies.flatMap((company) => [company.id, company.name]),
      "no such company",
    ];
    const some = <T>(values: readonly T[]) =>
      fc.uniqueArray(fc.constantFrom(...values), { minLength: 1, maxLength: 3 });
    const byColumn: fc.Arbitrary<Selector>[] = [
      fc.record({ environment: some(environments) }),
      fc.record({ company: some(companies) }),
      fc.record({ provider: some(PROVIDER_CODES) }),
      fc.record({ headline: some(HEADLINES) }),
      fc.record({ ownership: some(OWNERSHIP_CODES) }),
      fc.record({ ownership: some(OWNERSHIP_CODES.filter((code) => code !== "owned")) }),
    ];
    const other: fc.Arbitrary<Selector>[] = [
      fc.record({ kind: fc.constant("lease" as const) }),
      fc.record({ status: some(KNOWN_LEASE_STATUSES) }),
    ];
    const selector = fc
      .tuple(fc.oneof(...byColumn), fc.option(fc.oneof(...byColumn, ...other), { nil: undefined }))
      .map(([first, second]) => ({ ...second, ...first }) as Selector);
    const policy = fc.array(selector, { minLength: 1, maxLength: 3 }).map(
      (selectors): Omit<Policy, "webhook"> => ({
        version: 1,
        operator: "janitor (ada)",
        rules: selectors.map((select, index) => ({
          name: `rule-${index}`,
          select,
          action: "release" as const,
        })),
      }),
    );
    const known = {
      environments: whole.environments.map(({ environmentId, name }) => ({ id: environmentId, name })),
      companies: whole.companies,
    };
    let byColumns = 0;
    let kept = 0;
    await fc.assert(
      fc.asyncProperty(policy, async (chosen) => {
        const input: PolicyPlanInput = {
          policy: chosen,
          proofs: [],
          now: NOW.toISOString(),
          history: [],
          quarantines: [],
        };
        const plan = await fromStore(input);
        expect(plan).toEqual(fromWhole(input));
        const rules = policyRowColumns(chosen, known);
        if (rules !== null && policyHeadlines(rules) === null) byColumns++;
        kept += plan.rules.reduce((sum, rule) => sum + rule.selected.length + rule.skipped.length, 0);
      }),
      { numRuns: 60, seed: 229 },
    );
    expect(byColumns, "policies read by the columns their rules name, not by headline").toBeGreaterThan(20);
    expect(kept, "rows the policies matched").toBeGreaterThan(0);
  });

  it("reads an ended owner's status from the store though no rule matches that owner's row", async () => {
    // A sandbox no row names, holding the marker of a closed lease: the forced destroy is proven only by
    // reading that closed row's status, a row the rule below never matches.
    const closed = whole.leases.find(
      (row) =>
        row.verdict.headline === "closed" &&
        ENDED_LEASE_STATUSES.some((status) => status === row.lease.status),
    )!;
    const orphan = candidatesOf(whole).find(
      (candidate): candidate is Extract<JanitorCandidate, { kind: "untracked" }> =>
        candidate.kind === "untracked",
    )!;
    const input: PolicyPlanInput = {
      policy: {
        version: 1,
        operator: "janitor (ada)",
        rules: [
          { name: "orphans", select: { kind: "untracked", proof: ["ended-lease"] }, action: "destroy" },
        ],
      },
      proofs: [
        proofOf(
          orphan,
          "another-lease",
          [{ sourceId: closed.sourceId, leaseId: closed.lease.id, status: closed.lease.status }],
          prefixOf(closed),
        ),
      ],
      now: NOW.toISOString(),
      history: [],
      quarantines: [],
    };
    const plan = await fromStore(input);
    const [item] = plan.rules[0]!.selected;
    expect(item?.target).toMatchObject({ kind: "untracked", sandboxId: orphan.sandbox.sandboxId });
    expect(item?.proof?.proves).toBe(true);
    expect(plan).toEqual(fromWhole(input));
  });
});

describe("a janitor's plan of a policy whose rules name more than headlines", () => {
  it("never parses a row the columns its rules name rule out", async () => {
    const { held, whole } = await storedGeneratedWorld(600);
    try {
      const company = whole.companies[0]!;
      const environment = whole.environments.find((summary) => summary.companyId !== company.id)!;
      const policy: PolicyPlanInput["policy"] = {
        version: 1,
        operator: "janitor (ada)",
        rules: [
          // By company name, and by environment name with CreateOS's state: neither names a headline.
          { name: "company", select: { company: [company.name], kind: "lease" }, action: "destroy" },
          {
            name: "environment",
            select: { environment: [environment.name], provider: ["running", "paused"] },
            action: "release",
          },
        ],
      };
      const input: PolicyPlanInput = {
        policy,
        proofs: [],
        now: NOW.toISOString(),
        history: [],
        quarantines: [],
      };
      const expected = planPass({ ...input, inventory: whole, now: NOW });
      const matched = expected.rules.reduce(
        (sum, rule) => sum + rule.selected.length + rule.skipped.length,
        0,
      );
      expect(matched, "rows the policy matches").toBeGreaterThan(0);

      // Every row of another company and another environment is made unreadable in the store: a plan
      // that parsed one would fail.
      const spoiled = held.db
        .prepare(
          `UPDATE inventory_rows SET data = '{ not json' WHERE company_id IS NOT ?
             AND (environment_id IS NOT ? OR provider_code NOT IN ('running', 'paused'))`,
        )
        .run(company.id, environment.environmentId).changes;
      expect(spoiled, "rows the columns rule out").toBeGreaterThan(whole.leases.length / 2);

      const plan = (await held.keeper.handle({ type: "policy-plan", input })) as PassPlan;
      expect(plan).toEqual(expected);
    } finally {
      await held.close();
    }
  });
});

describe("a janitor's plan of a policy whose rules name ownership codes", () => {
  it("parses only the rows holding one of the codes, read by the index that leaves owned rows out", async () => {
    const { held, whole } = await storedGeneratedWorld(600);
    try {
      const codes = ["foreign-company", "metadata-missing"] as const;
      const holding = whole.leases.filter((row) =>
        row.verdict.ownership.some((code) => codes.includes(code as never)),
      );
      expect(holding.length, "rows holding one of the codes").toBeGreaterThan(0);
      const input: PolicyPlanInput = {
        policy: {
          version: 1,
          operator: "janitor (ada)",
          rules: [
            { name: "lost", select: { ownership: ["metadata-missing"] }, action: "release" },
            { name: "theirs", select: { ownership: ["foreign-company"], kind: "lease" }, action: "destroy" },
          ],
        },
        proofs: [],
        now: NOW.toISOString(),
        history: [],
        quarantines: [],
      };
      const expected = planPass({ ...input, inventory: whole, now: NOW });

      // Every row holding neither code is made unreadable in the store: a plan that parsed one would fail.
      const spoiled = held.db
        .prepare(
          `UPDATE inventory_rows SET data = '{ not json' WHERE NOT EXISTS (SELECT 1 FROM json_each(ownership)
             WHERE value IN ('foreign-company', 'metadata-missing'))`,
        )
        .run().changes;
      expect(spoiled).toBe(whole.leases.length - holding.length);

      const plan = (await held.keeper.handle({ type: "policy-plan", input })) as PassPlan;
      expect(plan).toEqual(expected);
    } finally {
      await held.close();
    }
  });
});

describe("a janitor's plan over a store of history", () => {
  it.each([
    ["no column answers", { status: KNOWN_LEASE_STATUSES }],
    ["its columns answer", { provider: ["running", "paused", "gone", "not-visible"] }],
    [
      "ownership codes an owned row lacks answer",
      { ownership: OWNERSHIP_CODES.filter((code) => code !== "owned") },
    ],
    ["headlines answer, history's among them", { headline: ["closed", "stale", "leaking"] }],
  ] as const)("never parses a closed row, for a rule %s", async (_name, select) => {
    const { held, whole } = await storedGeneratedWorld(600);
    try {
      const input: PolicyPlanInput = {
        policy: {
          version: 1,
          operator: "janitor (ada)",
          rules: [{ name: "rule", select: select as Selector, action: "release" }],
        },
        proofs: [],
        now: NOW.toISOString(),
        history: [],
        quarantines: [],
      };
      const expected = planPass({ ...input, inventory: whole, now: NOW });
      const context = selectionContext({
        inventory: whole,
        proofs: [],
        statuses: leaseStatuses(whole),
        recorders: new Map(),
        now: NOW,
      });
      const closedMatched = whole.leases.filter(
        (row) =>
          row.verdict.headline === "closed" &&
          matchSelector(select as Selector, { kind: "lease", lease: row }, context).matches,
      );
      expect(closedMatched.length, "closed rows the rule matches").toBeGreaterThan(0);
      // History is no candidate: a store of a million rows, nearly all history, reads the live ones.
      const spoiled = held.db
        .prepare("UPDATE inventory_rows SET data = '{ not json' WHERE headline = 'closed'")
        .run().changes;
      expect(spoiled, "closed rows").toBeGreaterThan(0);

      const plan = (await held.keeper.handle({ type: "policy-plan", input })) as PassPlan;
      expect(plan).toEqual(expected);
    } finally {
      await held.close();
    }
  });
});

describe("a janitor's plan of a policy whose rules name no column", () => {
  it.each([
    ["as generated", (inventory: Inventory) => inventory, false],
    [
      // Every closed row and a live row for every five: the live rows are read through their index.
      "nearly all history",
      (inventory: Inventory) => {
        const closed = inventory.leases.filter((row) => row.verdict.headline === "closed").length;
        const every = Math.ceil((inventory.leases.length - closed) / (closed / 5));
        let live = 0;
        return {
          ...inventory,
          leases: inventory.leases.filter((row) => row.verdict.headline === "closed" || live++ % every === 0),
        };
      },
      true,
    ],
  ] as const)(
    "takes the rows it keeps in the sources' order, whatever order the table holds them in, in a world %s",
    async (_name, world, mostlyHistory) => {
      const { held, whole: first } = await storedGeneratedWorld(mostlyHistory ? 2400 : 600, world);
      try {
        const live = first.leases.filter((row) => row.verdict.headline !== "closed").length;
        expect(live * 3 < first.leases.length, "fewer live rows than a third of the store").toBe(
          mostlyHistory,
        );
        // Accepted again with the rows in the opposite order: each row moves and none is rewritten, so
        // the table holds them in another order than the sources'.
        await held.keeper.handle({
          type: "accept",
          inventory: { ...first, leases: [...first.leases].reverse() },
        });
        const whole = (await held.keeper.handle({ type: "inventory" })) as Inventory;
        const tableOrder = held.db
          .prepare("SELECT lease_id FROM inventory_rows ORDER BY rowid")
          .pluck()
          .all();
        expect(tableOrder).not.toEqual(whole.leases.map((row) => row.lease.id));

        // Rules by ownership and status alone read every row; caps make the order decide what is selected.
        const input: PolicyPlanInput = {
          policy: {
            version: 1,
            operator: "janitor (ada)",
            rules: [
              { name: "owned", select: { ownership: ["owned"] }, action: "release", maxPerPass: 7 },
              {
                name: "others",
                select: { status: [...KNOWN_LEASE_STATUSES] },
                action: "release",
                maxPerPass: 5,
              },
            ],
          },
          proofs: [],
          now: NOW.toISOString(),
          history: [],
          quarantines: [],
        };
        expect(policyRowColumns(input.policy, { environments: [], companies: [] })).toBeNull();
        const expected = planPass({ ...input, inventory: whole, now: NOW });
        // The first rule's cap holds back rows it matched, so which seven it selects is the order's.
        expect(expected.rules[0]?.selected.length).toBe(7);
        expect(expected.rules[0]?.skipped.some((item) => item.skip?.reason === "cap-reached")).toBe(true);
        if (!mostlyHistory) expect(expected.rules[1]?.selected.length).toBe(5);

        const plan = (await held.keeper.handle({ type: "policy-plan", input })) as PassPlan;
        expect(plan).toEqual(expected);

        // A capped rule its columns answer, read by the same choice of the table or the live index.
        const byColumns: PolicyPlanInput = {
          ...input,
          policy: {
            ...input.policy,
            rules: [
              { name: "live", select: { provider: ["running", "paused"] }, action: "release", maxPerPass: 3 },
            ],
          },
        };
        const expectedByColumns = planPass({ ...byColumns, inventory: whole, now: NOW });
        expect(expectedByColumns.rules[0]?.skipped.some((item) => item.skip?.reason === "cap-reached")).toBe(
          true,
        );
        expect(await held.keeper.handle({ type: "policy-plan", input: byColumns })).toEqual(
          expectedByColumns,
        );
      } finally {
        await held.close();
      }
    },
  );
});
