import type { Database } from "../sqlite/migrations/index.js";

/** The database, with every statement it prepares recorded as it is prepared (to check SQLite's plans). */
export function recordingDatabase(db: Database): { db: Database; prepared: string[] } {
  const prepared: string[] = [];
  const proxy = new Proxy(db, {
    get(target, key) {
      if (key === "prepare")
        return (sql: string) => {
          prepared.push(sql);
          return target.prepare(sql);
        };
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { db: proxy, prepared };
}
