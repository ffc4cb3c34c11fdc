import { it } from "vitest";
import { isFull } from "./support/size.js";

// `npm run test:chaos` runs test/chaos only; this brings the crash suite along at its full size (60 seeded
// kill points). At the small size it runs from test/crash inside `npm test`, so here it is skipped.
if (isFull) await import("../crash/seeded-kills.test.js");
else it.skip("the crash suite at full size runs under npm run test:chaos (small size: test/crash)", () => {});
