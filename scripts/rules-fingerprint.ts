import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/**
 * The fingerprint of the code that judges a row and decides what the store keeps of it (decision 224):
 * every module the inventory keeper reaches by relative import, read whole. A stored row was judged
 * under the fingerprint its inputs began with; a build whose fingerprint differs judges every row
 * again, and one whose fingerprint is the same trusts what the store holds. `npm run build:cli` writes
 * it before it bundles; `npm run rules:fingerprint -- --check` and a test fail while it is stale.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Where the judging starts: the keeper, which reaches the rules, the store's row columns and the redactor. */
const ROOTS = [
  "electron/core/inventory/worker/inventory-keeper.ts",
  "electron/core/store/judged-inventory-store.ts",
];

export const FINGERPRINT_FILE = "electron/core/inventory/judge/rules-fingerprint.ts";

/** The modules the roots reach by relative import, as paths from the repository's root, sorted. */
export function judgingModules(root = ROOT): string[] {
  const seen = new Set<string>();
  const pending = ROOTS.map((file) => path.join(root, file));
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith(".")) continue;
      const resolved = resolveModule(path.resolve(path.dirname(file), fileName));
      if (resolved === undefined)
        throw new Error(`${path.relative(root, file)} imports ${fileName}, which is not a file`);
      pending.push(resolved);
    }
  }
  const fingerprintFile = path.join(root, FINGERPRINT_FILE);
  return [...seen]
    .filter((file) => file !== fingerprintFile)
    .map((file) => path.relative(root, file).split(path.sep).join("/"))
    .sort();
}

/** A relative import as written (`./x.js`, `./dir`) to the TypeScript file it names. */
function resolveModule(target: string): string | undefined {
  const stem = target.replace(/\.(js|mjs|ts|tsx)$/, "");
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, target, path.join(target, "index.ts")])
    if (candidate.match(/\.(ts|tsx|js|mjs|json)$/) && existsSync(candidate)) return candidate;
  return undefined;
}

/** The digest of every judging module's path and text (line endings as LF). */
export function computeRulesFingerprint(root = ROOT): string {
  const hash = createHash("sha256");
  for (const file of judgingModules(root)) {
    hash.update(`${file}\u0000`);
    // A checkout that writes CRLF line endings holds the same code.
    hash.update(readFileSync(path.join(root, file), "utf8").replace(/\r\n/g, "\n"));
    hash.update("\u0000");
  }
  return hash.digest("hex").slice(0, 32);
}

export function fingerprintSource(fingerprint: string): string {
  return [
    "// Written by `npm run rules:fingerprint` (scripts/rules-fingerprint.ts); not edited by hand.",
    "",
    "/** The digest of the code that judges rows and decides what the store keeps of them (decision 224). */",
    `export const RULES_FINGERPRINT = "${fingerprint}";`,
    "",
  ].join("\n");
}

/** The fingerprint the committed file holds, or undefined when it holds none. */
export function committedFingerprint(root = ROOT): string | undefined {
  const file = path.join(root, FINGERPRINT_FILE);
  if (!existsSync(file)) return undefined;
  return /RULES_FINGERPRINT = "([0-9a-f]+)"/.exec(readFileSync(file, "utf8"))?.[1];
}

function main(args: string[]): void {
  const fingerprint = computeRulesFingerprint();
  const committed = committedFingerprint();
  if (args.includes("--check")) {
    if (committed === fingerprint) return;
    console.error(`${FINGERPRINT_FILE} is stale: run \`npm run rules:fingerprint\` and commit it.`);
    process.exitCode = 1;
    return;
  }
  if (committed !== fingerprint)
    writeFileSync(path.join(ROOT, FINGERPRINT_FILE), fingerprintSource(fingerprint));
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  main(process.argv.slice(2));
