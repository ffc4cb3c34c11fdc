import { describe, expect, it } from "vitest";
import { decideActions, REFUSAL_MESSAGES } from "./allowed-actions.js";
import {
  type ActionKind,
  type DestroyConfirmation,
  LIVE_PROVIDER_STATES,
  type OwnershipCode,
  PLUGIN_MESSAGES,
  type ProviderCode,
  type RowFlag,
} from "./codes.js";
import { row } from "./test-fixtures.js";

const FOREIGN = PLUGIN_MESSAGES.foreignLease;

/** [case, ownership, provider, flags, statuses of other rows on the sandbox] */
type Situation = [string, OwnershipCode[], ProviderCode, RowFlag[], string[]];
/** [allowed, overridable, destroy confirmation, release refusal reason, destroy refusal reason] */
type Expected = [ActionKind[], ActionKind[], DestroyConfirmation | null, string | null, string | null];

const decide = (ownership: OwnershipCode[], provider: ProviderCode, flags: RowFlag[], others: string[]) =>
  decideActions({ ownership, provider, flags, otherRowsOnSandbox: others.map((status) => row({ status })) });

describe("allowed actions and the confirmation each needs", () => {
  it.each<[...Situation, ...Expected]>([
    // Owned rows: release, and destroy with a click.
    ["owned, paused", ["owned"], "paused", [], [], ["release", "destroy"], [], "click", null, null],
    [
      "owned, running and leaking",
      ["owned"],
      "running",
      ["leaking"],
      [],
      ["release", "destroy"],
      [],
      "click",
      null,
      null,
    ],
    [
      "owned, stale-config",
      ["owned"],
      "paused",
      ["stale-config"],
      [],
      ["release", "destroy"],
      [],
      "click",
      null,
      null,
    ],
    ["owned, error (resumable)", ["owned"], "error", [], [], ["release", "destroy"], [], "click", null, null],
    [
      "owned, gone: release refused, destroy is an idempotent no-op",
      ["owned"],
      "gone",
      [],
      [],
      ["destroy"],
      [],
      "click",
      "gone",
      null,
    ],
    // Provider state we cannot see: nothing at all.
    ["owned, provider unknown", ["owned"], "unknown", [], [], [], [], null, "unknown", "unknown"],
    ["owned, not visible", ["owned"], "not-visible", [], [], [], [], null, "not-visible", "not-visible"],
    // Rows the plugin refuses: forced destroy of a live, visible sandbox only.
    [
      "foreign-company, running",
      ["foreign-company"],
      "running",
      [],
      [],
      ["destroy"],
      [],
      "typed-id",
      "foreign-company",
      null,
    ],
    [
      "foreign-environment, paused",
      ["foreign-environment"],
      "paused",
      [],
      [],
      ["destroy"],
      [],
      "typed-id",
      "foreign-environment",
      null,
    ],
    [
      "foreign-provider, running",
      ["foreign-provider"],
      "running",
      [],
      [],
      ["destroy"],
      [],
      "typed-id",
      "foreign-provider",
      null,
    ],
    [
      "api-url-changed, running: the host releases at the recorded URL",
      ["api-url-changed"],
      "running",
      [],
      [],
      ["release", "destroy"],
      [],
      "typed-id",
      null,
      null,
    ],
    [
      "metadata-missing, paused",
      ["metadata-missing"],
      "paused",
      [],
      [],
      ["destroy"],
      [],
      "typed-id",
      "metadata-missing",
      null,
    ],
    [
      "several foreign codes: the first decides",
      ["foreign-provider", "foreign-company"],
      "running",
      [],
      [],
      ["destroy"],
      [],
      "typed-id",
      "foreign-provider",
      null,
    ],
    [
      "foreign-company, gone: nothing to do",
      ["foreign-company"],
      "gone",
      [],
      [],
      [],
      [],
      null,
      "foreign-company",
      "gone",
    ],
    [
      "api-url-changed, gone: nothing to do",
      ["api-url-changed"],
      "gone",
      [],
      [],
      [],
      [],
      null,
      "gone",
      "gone",
    ],
    [
      "api-url-changed, no key for the old origin",
      ["api-url-changed"],
      "unknown",
      [],
      [],
      [],
      [],
      null,
      "unknown",
      "unknown",
    ],
    [
      "foreign-company, not visible",
      ["foreign-company"],
      "not-visible",
      [],
      [],
      [],
      [],
      null,
      "foreign-company",
      "not-visible",
    ],
    // No sandbox id: nothing anywhere; the plugin returns before checking ownership.
    [
      "owned, no sandbox id",
      ["owned", "no-sandbox-id"],
      "unknown",
      [],
      [],
      [],
      [],
      null,
      "no-sandbox-id",
      "no-sandbox-id",
    ],
    [
      "foreign, no sandbox id",
      ["foreign-company", "no-sandbox-id"],
      "unknown",
      [],
      [],
      [],
      [],
      null,
      "no-sandbox-id",
      "no-sandbox-id",
    ],
    // Paperclip's sweep owns it.
    [
      "owned, host-cleanup",
      ["owned"],
      "running",
      ["host-cleanup"],
      [],
      [],
      [],
      null,
      "host-cleanup",
      "host-cleanup",
    ],
    [
      "foreign, host-cleanup",
      ["foreign-environment"],
      "running",
      ["host-cleanup"],
      [],
      [],
      [],
      null,
      "foreign-environment",
      "host-cleanup",
    ],
    // Overrides: a run or another live lease depends on the sandbox.
    [
      "owned, in use",
      ["owned"],
      "running",
      ["in-use"],
      [],
      [],
      ["release", "destroy"],
      "click",
      "in-use",
      "in-use",
    ],
    [
      "shared with an active row",
      ["owned"],
      "running",
      ["shared"],
      ["active"],
      [],
      ["release", "destroy"],
      "click",
      "shared",
      "shared",
    ],
    [
      "shared with a retained row",
      ["owned"],
      "paused",
      ["shared"],
      ["released", "retained"],
      [],
      ["release", "destroy"],
      "click",
      "shared",
      "shared",
    ],
    [
      "shared only with released rows: no override",
      ["owned"],
      "paused",
      ["shared"],
      ["released", "expired"],
      ["release", "destroy"],
      [],
      "click",
      null,
      null,
    ],
    [
      "shared with a pending_cleanup row: no override",
      ["owned"],
      "paused",
      ["shared"],
      ["pending_cleanup"],
      ["release", "destroy"],
      [],
      "click",
      null,
      null,
    ],
    [
      "foreign, in use: typed id behind the override",
      ["foreign-company"],
      "running",
      ["in-use"],
      [],
      [],
      ["destroy"],
      "typed-id",
      "foreign-company",
      "in-use",
    ],
    [
      "in use and shared: in-use decides",
      ["owned"],
      "running",
      ["in-use", "shared"],
      ["active"],
      [],
      ["release", "destroy"],
      "click",
      "in-use",
      "in-use",
    ],
    [
      "in use but unknown: impossible even with override",
      ["owned"],
      "unknown",
      ["in-use"],
      [],
      [],
      [],
      null,
      "unknown",
      "unknown",
    ],
    // Whether the plugin accepts it cannot be told: no release; a destroy at CreateOS with the id typed.
    [
      "environment-unread, paused",
      ["environment-unread"],
      "paused",
      [],
      [],
      ["destroy"],
      [],
      "typed-id",
      "environment-unread",
      null,
    ],
    [
      "environment-unread, in use",
      ["environment-unread"],
      "running",
      ["in-use"],
      [],
      [],
      ["destroy"],
      "typed-id",
      "environment-unread",
      "in-use",
    ],
    [
      "environment-unread, gone",
      ["environment-unread"],
      "gone",
      [],
      [],
      [],
      [],
      null,
      "environment-unread",
      "gone",
    ],
    [
      "shared but gone on a foreign row: impossible",
      ["foreign-company"],
      "gone",
      ["shared"],
      ["active"],
      [],
      [],
      null,
      "foreign-company",
      "gone",
    ],
  ])(
    "%s",
    (_, ownership, provider, flags, others, allowed, overridable, confirmation, releaseReason, destroyReason) => {
      const decision = decide(ownership, provider, flags, others);
      expect(decision.allowedActions).toEqual(allowed);
      expect(decision.overridableActions).toEqual(overridable);
      expect(decision.destroyConfirmation).toBe(confirmation);
      expect(decision.refusals.release?.reason ?? null).toBe(releaseReason);
      expect(decision.refusals.destroy?.reason ?? null).toBe(destroyReason);
    },
  );

  it.each(LIVE_PROVIDER_STATES)("a forced destroy is offered for a foreign sandbox that is %s", (state) => {
    expect(decide(["foreign-company"], state, [], []).destroyConfirmation).toBe("typed-id");
  });
});

describe("a closed row (history)", () => {
  it.each<[string, OwnershipCode[], ProviderCode]>([
    ["owned, gone", ["owned"], "gone"],
    ["owned, not listed any more", ["owned"], "not-visible"],
    ["foreign, gone", ["foreign-company"], "gone"],
    ["no sandbox id", ["owned", "no-sandbox-id"], "unknown"],
  ])("offers no action: %s", (_, ownership, provider) => {
    const decision = decideActions({ ownership, provider, flags: [], otherRowsOnSandbox: [], closed: true });
    expect(decision.allowedActions).toEqual([]);
    expect(decision.overridableActions).toEqual([]);
    expect(decision.destroyConfirmation).toBeNull();
    expect(decision.refusals.release?.message).toBe(REFUSAL_MESSAGES.closed);
    expect(decision.refusals.destroy?.reason).toBe("closed");
  });
});

describe("refusal messages", () => {
  it.each<[string, OwnershipCode[], ProviderCode, RowFlag[], string[], ActionKind, string]>([
    ["foreign-company release", ["foreign-company"], "running", [], [], "release", FOREIGN],
    ["foreign-environment release", ["foreign-environment"], "running", [], [], "release", FOREIGN],
    ["foreign-provider release", ["foreign-provider"], "running", [], [], "release", FOREIGN],
    ["metadata-missing release", ["metadata-missing"], "running", [], [], "release", FOREIGN],
    [
      "environment-unread release",
      ["environment-unread"],
      "running",
      [],
      [],
      "release",
      REFUSAL_MESSAGES.environmentUnread,
    ],
    ["no sandbox id", ["owned", "no-sandbox-id"], "unknown", [], [], "destroy", REFUSAL_MESSAGES.noSandboxId],
    ["host cleanup", ["owned"], "running", ["host-cleanup"], [], "release", REFUSAL_MESSAGES.hostCleanup],
    ["unknown", ["owned"], "unknown", [], [], "destroy", REFUSAL_MESSAGES.unknown],
    ["not visible", ["owned"], "not-visible", [], [], "destroy", REFUSAL_MESSAGES.notVisible],
    ["gone", ["foreign-company"], "gone", [], [], "destroy", REFUSAL_MESSAGES.gone],
    [
      "in use (explains the override)",
      ["owned"],
      "running",
      ["in-use"],
      [],
      "destroy",
      REFUSAL_MESSAGES.inUse,
    ],
    [
      "shared (explains the override)",
      ["owned"],
      "running",
      ["shared"],
      ["retained"],
      "destroy",
      REFUSAL_MESSAGES.shared,
    ],
  ])("%s", (_, ownership, provider, flags, others, action, message) => {
    expect(decide(ownership, provider, flags, others).refusals[action]?.message).toBe(message);
  });

  it("uses the plugin's exact words for a foreign lease", () => {
    expect(FOREIGN).toBe("CreateOS lease does not belong to this environment.");
  });

  it("explains an override in words that mention it", () => {
    expect(REFUSAL_MESSAGES.inUse).toMatch(/override/);
    expect(REFUSAL_MESSAGES.shared).toMatch(/override/);
  });
});
