import type { WorldEnvironment, WorldSpec } from "../../actions/testing/world.js";

export const DELETE_SANDBOX = "DELETE /v1/sandboxes/:id";
export const PAUSE_SANDBOX = "POST /v1/sandboxes/:id/pause";

/**
 * A world in which each sandbox is held by one lease of `environment`, so a rule that selects that
 * environment selects every sandbox. `rest` carries what a test makes CreateOS do (faults, slow transitions).
 */
export function leasedWorld(
  ids: readonly string[],
  environment: WorldEnvironment,
  rest: Omit<WorldSpec, "sandboxes" | "environments" | "leases"> = {},
): WorldSpec {
  return {
    sandboxes: ids.map((id) => ({ id })),
    environments: [environment],
    leases: ids.map((id) => ({ id: `lease-${id}`, environmentId: environment.id, sandboxId: id })),
    ...rest,
  };
}

/** How many requests of one route reached CreateOS for a sandbox; none is 0. */
export async function sentTo(
  world: { requestsFor(sandboxId: string): Promise<Record<string, number>> },
  sandboxId: string,
  route: string,
): Promise<number> {
  return (await world.requestsFor(sandboxId))[route] ?? 0;
}
