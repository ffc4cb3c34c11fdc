import type { CliCommand } from "../command.js";
import { command as apply } from "./apply.js";
import { command as audit } from "./audit.js";
import { command as jobs } from "./jobs.js";
import { command as plan } from "./plan.js";
import { command as prove } from "./prove.js";
import { command as quarantine } from "./quarantine.js";
import { command as repair } from "./repair.js";
import { command as resume } from "./resume.js";
import { command as scan } from "./scan.js";
import { command as watch } from "./watch.js";

/**
 * Every `leasekeeper` command, in the order `leasekeeper --help` lists them (by name). Imported
 * statically so that the CLI bundles (vite.cli.config.ts); a new command file is added here, and
 * electron/core/cli/run.test.ts fails while a file in this folder is missing from the list.
 */
export const COMMANDS: readonly CliCommand[] = [
  apply,
  audit,
  jobs,
  plan,
  prove,
  quarantine,
  repair,
  resume,
  scan,
  watch,
];
