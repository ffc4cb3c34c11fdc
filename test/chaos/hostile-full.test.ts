import { it } from "vitest";
import { isFull } from "./support/size.js";

// `npm run test:chaos` runs test/chaos only; this brings the contract fuzzing along at its full size (400
// payloads per channel, 1,500 over HTTP). At the small size it runs from test/hostile inside `npm test`.
if (isFull) await import("../hostile/contract-fuzz.test.js");
else
  it.skip("the contract fuzzing at full size runs under npm run test:chaos (small size: test/hostile)", () => {});
