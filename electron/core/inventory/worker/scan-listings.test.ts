import { describe, expect, it } from "vitest";
import type { SandboxListing } from "../../../../shared/domain/inventory.js";
import { indexListings } from "../../../../shared/domain/provider-state.js";
import { listingChanges } from "../judge/listing-changes.js";
import { ScanListings } from "./scan-listings.js";

// One CreateOS account configured under two addresses lists the same pages, byte for byte, at each.

const VIEWS = [
  { id: "00000000-0000-4000-8000-000000000001", status: "running", shape: "s-1" },
  { id: "00000000-0000-4000-8000-000000000002", status: "paused", shape: "s-1" },
];
const PAGE = { digest: "same-bytes", count: VIEWS.length, total: VIEWS.length };
const ORIGINS = ["https://api.createos.example", "https://legacy.createos.example"];

const ended = (origin: string): SandboxListing => ({
  origin,
  credential: "cred-1",
  outcome: { ok: true, sandboxes: [], observedAt: "2026-12-05T00:00:00.000Z" },
});

/** One scan's two listings, each page parsed (`known` empty) or taken from the last scan's. */
async function scanned(known?: ScanListings): Promise<{ scan: ScanListings; listings: SandboxListing[] }> {
  const scan = new ScanListings();
  if (known !== undefined) scan.known = known.listed;
  ORIGINS.forEach((origin, listing) => {
    scan.addPage(listing, PAGE, known === undefined ? VIEWS : null);
    scan.end(listing, ended(origin), 1);
  });
  return { scan, listings: await scan.allIn(ORIGINS.length) };
}

const sandboxesOf = (listing: SandboxListing) => (listing.outcome.ok ? listing.outcome.sandboxes : []);

describe("a scan's listings whose pages repeat another listing's bytes", () => {
  it("hold one reading of those bytes, the one the next scan takes the page from", async () => {
    const first = await scanned();
    const [atNew, atLegacy] = first.listings.map(sandboxesOf);
    expect(atNew!.map((sandbox) => sandbox.id)).toEqual(VIEWS.map((view) => view.id));
    expect(atLegacy).toHaveLength(VIEWS.length);
    for (const [at, sandbox] of atLegacy!.entries()) expect(sandbox).toBe(atNew![at]);

    // The next scan is handed every page as known: each listing's entries are the very objects
    // the last scan's were, so telling what changed compares no sandbox's content.
    const next = await scanned(first.scan);
    expect(first.scan.pages).toEqual({ read: 2, reused: 0, repeated: 0 });
    expect(next.scan.pages).toEqual({ read: 0, reused: 2, repeated: 0 });
    const before = indexListings(first.listings);
    const after = indexListings(next.listings);
    for (const origin of ORIGINS)
      for (const [sandboxId, entry] of after.get(origin)!.sandboxes)
        expect(entry.sandbox).toBe(before.get(origin)!.sandboxes.get(sandboxId)!.sandbox);
    expect(listingChanges(before, after)).toEqual({ sandboxes: new Map(), origins: new Set() });
  });

  it("take a page named by its digest alone from the listing of this scan that carried its views", async () => {
    // The reader parses a page's bytes once a scan: the second address's page comes as its digest.
    const scan = new ScanListings();
    ORIGINS.forEach((origin, listing) => {
      scan.addPage(listing, PAGE, listing === 0 ? VIEWS : null);
      scan.end(listing, ended(origin), 1);
    });
    const [atNew, atLegacy] = (await scan.allIn(ORIGINS.length)).map(sandboxesOf);
    expect(atLegacy!.map((sandbox) => sandbox.id)).toEqual(VIEWS.map((view) => view.id));
    for (const [at, sandbox] of atLegacy!.entries()) expect(sandbox).toBe(atNew![at]);
    expect(scan.pages).toEqual({ read: 1, reused: 0, repeated: 1 });
    expect([...scan.listed.keys()]).toEqual([PAGE.digest]);
  });
});
