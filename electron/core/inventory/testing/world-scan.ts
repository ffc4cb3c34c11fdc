import { hash } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { generateDemoWorld } from "../../../../simulator/index.js";
import type { LeasekeeperConfig } from "../../config/load.js";
import type { InventoryWorker } from "../worker/inventory-worker-client.js";
import type { Accepted, KnownPage } from "../worker/protocol.js";

/** One credential's listing of a generated world: its sandboxes as CreateOS's list pages carry them. */
export interface GeneratedListing {
  origin: string;
  credential: string;
  /** Pages of sandbox views, in order, as many per page as the client asks for (500). */
  pages: unknown[][];
}

export interface WorldFiles {
  config: LeasekeeperConfig;
  listings: GeneratedListing[];
  leases: number;
}

/**
 * A generated world of `size` leases as a scan reads it: its ledger written to `dir` (as `ledgerFile`,
 * so that two worlds can share a data directory), a config that reads
 * it, and each credential's listing as the pages CreateOS would send (the views carry what the
 * simulator's list would: id, status, shape, rootfs, creation time, name). The benchmark's layout: 50
 * environments, 5 accounts, each listed at two origins.
 */
export async function generatedWorldFiles(
  dir: string,
  {
    size,
    seed = "generated-world",
    ledgerFile = "ledger.json",
  }: { size: number; seed?: string; ledgerFile?: string },
): Promise<WorldFiles> {
  const world = generateDemoWorld({ size, seed, environments: 50, accounts: 5 });
  const ledger = path.join(dir, ledgerFile);
  await writeFile(ledger, JSON.stringify(world.ledger));
  const accountByKey = new Map(world.fleet.accounts.map((account) => [account.apiKey, account]));
  const listings = world.config.credentials.map((credential): GeneratedListing => {
    const sandboxes = accountByKey.get(world.keys[credential.apiKeyEnv]!)?.sandboxes ?? [];
    const views = sandboxes.map((sandbox) => ({
      id: sandbox.id,
      status: sandbox.status,
      shape: sandbox.shape,
      ...(sandbox.rootfs ? { rootfs: sandbox.rootfs } : {}),
      ...(sandbox.created_at ? { created_at: sandbox.created_at } : {}),
      ...(sandbox.name ? { name: sandbox.name } : {}),
    }));
    const pages: unknown[][] = [];
    for (let from = 0; from < views.length; from += 500) pages.push(views.slice(from, from + 500));
    return { origin: credential.origin, credential: credential.name, pages };
  });
  const config = {
    file: path.join(dir, "leasekeeper.config.json"),
    dataDir: dir,
    credentials: world.config.credentials,
    sources: [{ kind: "ledger", id: "ledger", path: ledger }],
    rateLimitPerMinute: 300,
    refreshIntervalSeconds: 0,
    requestTimeoutMs: 5000,
  } as unknown as LeasekeeperConfig;
  return { config, listings, leases: world.ledger.leases.length };
}

/**
 * One scan through the real worker's protocol, as InventoryService drives it with CreateOS's pages in
 * hand: the sources read in the worker while every listing's pages are handed over, the judgement,
 * the view fetched in main's parts (which lets the save begin), and the save awaited.
 */
/** A list page as the reader names it, for views handed to a worker or keeper by a test. */
export function listPageOf(views: readonly unknown[], total: number | null = null): KnownPage {
  return { digest: hash("sha1", JSON.stringify(views), "base64"), count: views.length, total };
}

export async function scanInWorker(
  worker: InventoryWorker,
  scanId: number,
  { config, listings }: Pick<WorldFiles, "config" | "listings">,
  now = new Date("2026-11-30T12:00:00Z"),
): Promise<Accepted> {
  const handed: Promise<unknown>[] = [];
  const handOver = (answered: Promise<unknown>) => {
    answered.catch(() => undefined);
    handed.push(answered);
  };
  handOver(worker.request({ type: "read-sources", scanId, config, env: {} }));
  listings.forEach((listing, at) => {
    for (const views of listing.pages)
      handOver(worker.request({ type: "listing-page", scanId, listing: at, page: listPageOf(views), views }));
    const result = {
      origin: listing.origin,
      credential: listing.credential,
      outcome: { ok: true as const, observedAt: now.toISOString(), sandboxes: [] },
    };
    handOver(
      worker.request({ type: "listing-done", scanId, listing: at, pages: listing.pages.length, result }),
    );
  });
  await Promise.all(handed);
  const accepted = await worker.request<Accepted>({
    type: "judge",
    scanId,
    listings: listings.length,
    requests: listings.reduce((sum, listing) => sum + listing.pages.length, 0),
    now: now.toISOString(),
  });
  await worker.request({ type: "view-bytes", generation: accepted.generation });
  await worker.request({ type: "saved" });
  return accepted;
}
