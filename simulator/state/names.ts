import { hashString } from "../random.js";

// Sandboxes created without a name get `<adjective>-<animal>` ("brave-otter").

const ADJECTIVES =
  "brave calm eager fancy gentle happy jolly keen lively merry nimble proud quiet rapid shy swift tidy vivid witty zesty".split(
    " ",
  );
const ANIMALS =
  "otter badger falcon heron lynx marten newt ocelot panda quail raven seal tapir urchin vole walrus yak zebra bison crane".split(
    " ",
  );

/** A stable name for a sandbox id, so a seeded world reads the same on every start. */
export function nameForId(id: string): string {
  const hash = hashString(id);
  return `${ADJECTIVES[hash % ADJECTIVES.length]}-${ANIMALS[(hash >>> 8) % ANIMALS.length]}`;
}

/** A name no live sandbox of the caller uses yet; suffixes keep it within the ~22-character limit. */
export function uniqueName(id: string, taken: (name: string) => boolean): string {
  const base = nameForId(id);
  if (!taken(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!taken(candidate)) return candidate;
  }
}
