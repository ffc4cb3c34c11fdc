import { test as base, type Locator, type Page } from "@playwright/test";
import type { DemoOptions } from "../../scripts/demo.js";
import type { SimStats } from "../../simulator/stats.js";
import {
  expect,
  LEASE_ROW,
  type LeasekeeperWorld,
  startLeasekeeperWorld,
  stopLeasekeeperWorld,
} from "../support/leasekeeper.js";

/**
 * What the operator specs share: opening the console, bringing a lease row into view (the table is
 * virtualized, so a row exists in the DOM only when it is on screen), and reading what the simulator
 * holds through its side door.
 */

export interface SimSandbox {
  id: string;
  status: string;
  shape?: string;
}

interface JSend<T> {
  status: string;
  data: T;
}

export async function openConsole(page: Page, world: LeasekeeperWorld): Promise<void> {
  // On a page already at the host, going to the tokened URL changes only the fragment: reload instead.
  const already = page.url().startsWith(world.origin);
  await page.goto(world.url);
  if (already) await page.reload();
  await expect(page.locator(LEASE_ROW).first()).toBeVisible({ timeout: 20_000 });
}

/**
 * How many rows the chips and the search let through, read once the table's filter has answered: it
 * answers from a worker, so right after a click the count may still be the previous answer's.
 */
export async function matchingCount(page: Page): Promise<number> {
  await filterAnswered(page);
  const count = page.getByTestId("visible-count");
  await expect(count).toHaveAttribute("data-count", /^\d+$/);
  return Number(await count.getAttribute("data-count"));
}

/**
 * Waits until the rows shown answer the current search, chips and sort. Until then the previous answer
 * stays on screen, and keys such as j act on it: a row can be visible in that older list too.
 */
export async function filterAnswered(page: Page): Promise<void> {
  await expect(page.getByTestId("leases-view")).not.toHaveAttribute("aria-busy", "true");
}

export function leaseRow(page: Page, leaseId: string): Locator {
  return page.locator(`${LEASE_ROW}[data-lease-id="${leaseId}"]`);
}

/** Types the lease id into the search box so its row is the one on screen, and returns the row. */
export async function showLease(page: Page, leaseId: string): Promise<Locator> {
  await page.getByTestId("search").fill(leaseId);
  const row = leaseRow(page, leaseId);
  await expect(row).toBeVisible();
  await filterAnswered(page);
  return row;
}

export function ledgerLease(world: LeasekeeperWorld, leaseId: string) {
  const lease = world.demo.world.ledger.leases.find((candidate) => candidate.id === leaseId);
  if (!lease) throw new Error(`lease ${leaseId} is not in the demo ledger`);
  return lease;
}

export function sandboxOf(world: LeasekeeperWorld, leaseId: string): string {
  const sandboxId = ledgerLease(world, leaseId).providerLeaseId;
  if (!sandboxId) throw new Error(`lease ${leaseId} names no sandbox`);
  return sandboxId;
}

export function environmentOf(world: LeasekeeperWorld, leaseId: string) {
  const lease = ledgerLease(world, leaseId);
  const environment = world.demo.world.ledger.environments.find(
    (candidate) => candidate.id === lease.environmentId,
  );
  if (!environment) throw new Error(`lease ${leaseId} has no environment in the ledger`);
  return environment;
}

/** Every sandbox of every account, as the simulator holds it right now. */
export async function simSandboxes(world: LeasekeeperWorld): Promise<Map<string, SimSandbox>> {
  const body = await world.simState<JSend<Array<{ sandboxes: SimSandbox[] }>>>("sandboxes");
  const all = new Map<string, SimSandbox>();
  for (const account of body.data) for (const sandbox of account.sandboxes) all.set(sandbox.id, sandbox);
  return all;
}

export async function simSandbox(
  world: LeasekeeperWorld,
  sandboxId: string,
): Promise<SimSandbox | undefined> {
  return (await simSandboxes(world)).get(sandboxId);
}

export async function simStats(world: LeasekeeperWorld): Promise<SimStats> {
  return (await world.simState<JSend<SimStats>>("stats")).data;
}

/** Requests the simulator saw that change a sandbox (anything but reads). */
export function mutatingRequests(stats: SimStats, sandboxId?: string): number {
  const routes = sandboxId
    ? (stats.perSandbox[sandboxId] ?? {})
    : Object.fromEntries(
        Object.entries(stats.byRoute).map(([route, outcomes]) => [
          route,
          Object.values(outcomes).reduce((a, b) => a + b, 0),
        ]),
      );
  return Object.entries(routes)
    .filter(([route]) => !route.startsWith("GET "))
    .reduce((sum, [, count]) => sum + count, 0);
}

/** The first planted lease of a scenario whose row satisfies `accept`. */
export function plantedLease(
  world: LeasekeeperWorld,
  scenario: string,
  accept: (leaseId: string) => boolean = () => true,
): string {
  const found = world.planted(scenario).find(accept);
  if (!found) throw new Error(`the demo world planted no usable "${scenario}" lease`);
  return found;
}

/**
 * A world of its own for the specs in one file (a bigger fleet, faster transitions), started before its
 * tests and stopped after them, instead of the shared worker world.
 */
export function ownWorld(options: DemoOptions): () => LeasekeeperWorld {
  let world: LeasekeeperWorld | null = null;
  base.beforeAll(async () => {
    base.setTimeout(120_000);
    world = await startLeasekeeperWorld(options);
  });
  base.afterAll(async () => {
    if (world) await stopLeasekeeperWorld(world);
  });
  return () => {
    if (!world) throw new Error("the spec's own world did not start");
    return world;
  };
}

/** Moves focus to the lease table, so single-key shortcuts are not typed into the search box. */
export async function focusTable(page: Page): Promise<void> {
  await page.getByTestId("lease-table").focus();
}

/**
 * Types the count back where the plan asks for it ("destroy 248"), as the operator reads it off the
 * dialog; returns what was typed, or null when the plan asked for no count.
 */
export async function typeCountIfAsked(dialog: Locator): Promise<string | null> {
  const field = dialog.getByTestId("count-field");
  if (!(await field.isVisible())) return null;
  const expected = (await field.locator(".confirm-expected").textContent()) ?? "";
  await dialog.getByTestId("count-input").fill(expected);
  return expected;
}

/** Pauses a sandbox at CreateOS as its owner would (someone else acting between plan and apply). */
export async function pauseAsOwner(world: LeasekeeperWorld, sandboxId: string): Promise<void> {
  for (const key of Object.values(world.demo.keys)) {
    const response = await fetch(`${world.demo.simulator.url}/v1/sandboxes/${sandboxId}/pause`, {
      method: "POST",
      headers: { "X-Api-Key": key },
    });
    await response.arrayBuffer();
    if (response.status === 202 || response.status === 200) return;
  }
  throw new Error(`no account of the demo world could pause ${sandboxId}`);
}
