import type { LeasekeeperConfig } from "../config/load.js";

/**
 * Secrets other than CreateOS keys that this process holds for its sources: each Paperclip source's
 * board token, each database source's connection strings (read and write) and the shared store's (and
 * the password in each), read from the variables their config names. The redactor and the audit evidence scrubber
 * must know them too, or a row whose data happens to carry one would show it (e2e reliability-secrets).
 */
export function sourceSecrets(config: LeasekeeperConfig, env: NodeJS.ProcessEnv): string[] {
  const values: string[] = [];
  // The shared store's connection string is as secret as a source's.
  if (config.store?.kind === "postgres") {
    const url = env[config.store.urlEnv]?.trim();
    if (url) values.push(url, ...databasePassword(url));
  }
  for (const source of config.sources) {
    if (source.kind === "paperclip-db") {
      for (const name of [source.urlEnv, source.writeUrlEnv]) {
        const url = name === null ? undefined : env[name]?.trim();
        if (url) values.push(url, ...databasePassword(url));
      }
      continue;
    }
    if (source.kind !== "paperclip" || source.tokenEnv === null) continue;
    const token = env[source.tokenEnv]?.trim();
    if (token) values.push(token);
  }
  return values;
}

function databasePassword(url: string): string[] {
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password ? [password] : [];
  } catch {
    return [];
  }
}
