import { scrypt } from "node:crypto";

/**
 * scrypt's cost: about 16 MB and 0.1–0.3 s of CPU here, paid once per start and per change of keys, so
 * that a digest kept at rest is no cheap test of a guessed key. It runs on libuv's thread pool, so the
 * thread that asks reads its sources meanwhile.
 */
const SCRYPT = { N: 2 ** 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/**
 * What every row's inputs begin with (decision 224): the rules a row is judged by (their fingerprint)
 * and the keys taken out of what is stored of it. A row stored under the same salt was judged by these
 * very rules with these very keys taken out, so a scan may keep it when nothing else it reads changed,
 * in this process or after a restart; a new build or another set of keys draws another salt, and every
 * row is judged again. The keys are configured credentials: they enter through scrypt with the store's
 * own random `seed`, never as themselves, and the salt itself is never stored.
 */
export function judgingSalt({
  rules,
  keys,
  seed,
}: {
  rules: string;
  keys: readonly string[];
  seed: string;
}): Promise<string> {
  // The keys' order and repeats do not change what is taken out.
  const material = JSON.stringify([rules, ...[...new Set(keys)].sort()]);
  return new Promise((resolve, reject) =>
    scrypt(material, seed, 18, SCRYPT, (error, key) =>
      error === null ? resolve(key.toString("base64")) : reject(error),
    ),
  );
}
