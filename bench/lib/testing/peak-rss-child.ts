// A measured child for probes.test.ts: holds `--hold-mb` megabytes resident, then prints what
// `MemoryProbe` says the process's peak was.
import { parseArgs } from "node:util";
import { MemoryProbe } from "../probes.js";

const { values } = parseArgs({ options: { "hold-mb": { type: "string", default: "0" } } });
const probe = new MemoryProbe().start();
const held = Array.from({ length: Number(values["hold-mb"]) }, () => Buffer.alloc(1024 ** 2, 1));
process.stdout.write(`${JSON.stringify({ held: held.length, ...probe.stop() })}\n`);
