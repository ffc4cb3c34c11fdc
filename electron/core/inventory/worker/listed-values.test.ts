import { deserialize, serialize, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import type { ProviderSandbox, SandboxListing } from "../../../../shared/domain/inventory.js";
import { readSandboxViews } from "../../createos/views.js";
import { ScanListings } from "./scan-listings.js";

setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;

const SANDBOXES = 20_000;
const PER_PAGE = 500;
const SHAPES = ["s-1vcpu-1gb", "s-1vcpu-2gb", "s-2vcpu-2gb", "s-2vcpu-4gb", "s-4vcpu-8gb"];
const CREATORS = [1, 2, 3, 4, 5].map((n) => `0000000${n}-9ecb-4754-b353-440a9c4079ab`);

/** A fleet's list pages as the list-page reader's port hands them over: every string its own copy. */
function pagesAsPosted(): unknown[][] {
  const pages: unknown[][] = [];
  for (let first = 0; first < SANDBOXES; first += PER_PAGE) {
    const views = Array.from({ length: PER_PAGE }, (_, at) => {
      const n = first + at;
      return {
        id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
        status: n % 2 === 0 ? "running" : "paused",
        shape: SHAPES[n % SHAPES.length],
        rootfs: n % 5 === 0 ? "node" : "devbox:1",
        region: "eu",
        created_at: new Date(Date.UTC(2026, 11, 1) + n * 1000).toISOString(),
        created_by: CREATORS[n % CREATORS.length],
      };
    });
    pages.push(deserialize(serialize(views)) as unknown[]);
  }
  return pages;
}

/** The heap the sandboxes `hold` keeps of the pages it reads, once those pages are let go of (bytes). */
function heapHeldBy(hold: () => ProviderSandbox[][]): { bytes: number; held: number } {
  collect();
  const before = process.memoryUsage().heapUsed;
  const held = hold();
  collect();
  return { bytes: process.memoryUsage().heapUsed - before, held: held.flat().length };
}

const ENDED: SandboxListing = {
  origin: "https://api.createos.example",
  credential: "cred-1",
  outcome: { ok: true, sandboxes: [], observedAt: "2026-12-05T00:00:00.000Z" },
};

describe("the sandboxes a scan's listings hold", () => {
  it("share one copy of each status, shape, rootfs, region and creator across the scan's pages", async () => {
    const plain = heapHeldBy(() => pagesAsPosted().map((views) => readSandboxViews(views).sandboxes));
    const scan = new ScanListings();
    const listed = heapHeldBy(() => {
      const pages = pagesAsPosted();
      for (const [at, views] of pages.entries())
        scan.addPage(0, { digest: `page-${at}`, count: views.length, total: SANDBOXES }, views);
      scan.end(0, ENDED, pages.length);
      return [...scan.listed.values()].map(({ sandboxes }) => sandboxes);
    });
    expect(plain.held).toBe(SANDBOXES);
    expect(listed.held).toBe(SANDBOXES);
    const [listing] = await scan.allIn(1);
    expect(listing!.outcome.ok && listing!.outcome.sandboxes[1]).toEqual(
      readSandboxViews(pagesAsPosted()[0]!).sandboxes[1],
    );
    // Read as they arrive, each sandbox holds five strings of its own, about 160 bytes (measured: 385
    // bytes a sandbox read plainly, 221 through the scan's listings, its ids seen included).
    expect(listed.bytes).toBeLessThan(plain.bytes - 100 * SANDBOXES);
  });
});
