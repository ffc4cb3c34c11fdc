import type pg from "pg";
import { generationOfVersion, type InstalledPlugin } from "../../../shared/domain/plugin-generations.js";

/**
 * Which CreateOS plugin a Paperclip instance has installed, read from its `plugins` table (one row per
 * installed plugin, created by migration 0029_plugin_tables.sql, long before environments existed).
 *
 * Paperclip keys the row by the manifest's `id` (`plugins.plugin_key`, unique) and writes the manifest's
 * `version` beside it; an upgrade rewrites `version` in the same row. A lease records `pluginKey` (and
 * `pluginId`) copied from that row when it is acquired, so for every lease the published plugin wrote,
 * matching the manifest id and matching the recorded key are the same thing. A fork that renamed the
 * manifest id records its own key, which is why the recorded keys are asked when no row has the id.
 *
 * Only `plugin_key`, `version` and `status` are read: never `manifest_json` (which holds the config
 * schema) or `package_path` (a path on the Paperclip host). Nothing here makes the table required: an
 * instance without it, or a role that may not read it, still loads, and the answer says why the plugin
 * could not be told.
 */

/** The CreateOS plugin's manifest `id`, which Paperclip stores as `plugins.plugin_key`. */
export const CREATEOS_PLUGIN_KEY = "paperclip.createos-sandbox-provider";

/** The only columns of `plugins` ever read. */
export const PLUGIN_COLUMNS_READ = ["plugin_key", "version", "status"] as const;

const READ_FROM = "Paperclip's plugins table";
const CANNOT_TELL = "so which CreateOS plugin is installed cannot be told";

interface PluginRow {
  plugin_key: string;
  version: string | null;
  status: string | null;
}

/**
 * The installed CreateOS plugin, over a client inside an open read-only transaction. It throws only when
 * the database fails a statement (the caller runs it in a savepoint and says so with `unreadablePlugin`);
 * an absent table, an ungranted column or a missing row is an answer.
 */
export async function readInstalledPlugin(client: pg.ClientBase): Promise<InstalledPlugin> {
  // pg_class lists a table whatever the role may do with it, so an absent table and an ungranted one are
  // told apart; information_schema lists only the columns the role may use.
  const table = await client.query<{ present: boolean }>(
    `SELECT EXISTS (
       SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = current_schema() AND c.relname = 'plugins' AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
     ) AS present`,
  );
  if (table.rows[0]?.present !== true) {
    return unknown(`This Paperclip database has no plugins table, ${CANNOT_TELL}.`);
  }
  const columns = await client.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = 'plugins' AND column_name = ANY($1::text[])`,
    [PLUGIN_COLUMNS_READ],
  );
  const readable = new Set(columns.rows.map((row) => row.column_name));
  const missing = PLUGIN_COLUMNS_READ.filter((column) => !readable.has(column));
  if (missing.length > 0) {
    const names = missing.map((column) => `plugins.${column}`).join(", ");
    return unknown(
      `The Paperclip database role may not read ${names} (or the table lacks it), ${CANNOT_TELL}.`,
    );
  }

  // The table holds a row per installed plugin, a handful: all of them are read, three columns each.
  const rows = (await client.query<PluginRow>("SELECT plugin_key, version, status FROM plugins")).rows;
  const byKey = rows.find((row) => row.plugin_key === CREATEOS_PLUGIN_KEY);
  if (byKey !== undefined) return fromRow(byKey, READ_FROM);
  if (rows.length === 0) {
    return unknown(`${READ_FROM} lists no plugin, ${CANNOT_TELL}.`);
  }

  // No row has the published manifest id: the plugin its CreateOS leases name is the one that acts.
  const recorded = await client.query<{ key: string }>(
    `SELECT DISTINCT l.metadata->>'pluginKey' AS key
       FROM environment_leases l
      WHERE jsonb_typeof(l.metadata) = 'object'
        AND l.metadata->>'provider' = 'createos'
        AND l.metadata->>'pluginKey' = ANY($1::text[])`,
    [rows.map((row) => row.plugin_key)],
  );
  const named = rows.filter((row) => recorded.rows.some((entry) => entry.key === row.plugin_key));
  if (named.length === 1) {
    const row = named[0]!;
    return fromRow(row, `${READ_FROM} (the plugin its CreateOS leases record as ${quoted(row.plugin_key)})`);
  }
  if (named.length > 1) {
    const keys = named.map((row) => quoted(row.plugin_key)).join(", ");
    return unknown(`Its CreateOS leases record several plugins (${keys}), so which one acts cannot be told.`);
  }
  return unknown(`${READ_FROM} has no CreateOS plugin (${CREATEOS_PLUGIN_KEY}), ${CANNOT_TELL}.`);
}

/** The answer when the table could not be read; `why` names the failure. */
export function unreadablePlugin(why: string): InstalledPlugin {
  return unknown(`Reading ${READ_FROM} failed: ${why}, ${CANNOT_TELL}.`);
}

/**
 * The row's version and what its status means for the plugin that acts next. Paperclip's statuses
 * (PLUGIN_STATUSES in packages/shared/src/constants.ts): `installed` → `ready` | `error`; `ready` →
 * `disabled` | `error` | `upgrade_pending` | `uninstalled`; an upgrade writes the new version into the row
 * before it waits for approval. Only `uninstalled` leaves no plugin to act: a reinstall may bring any
 * version. In every other status the version is the code that acts once the plugin runs again.
 */
function fromRow(row: PluginRow, readFrom: string): InstalledPlugin {
  const version = plainVersion(row.version);
  if (version === null) {
    return unknown(`${readFrom} records no usable version for the CreateOS plugin, ${CANNOT_TELL}.`);
  }
  const status = row.status ?? "";
  if (status === "uninstalled") {
    return unknown(
      `${readFrom} says the CreateOS plugin (last ${version}) was uninstalled, so which plugin will act on its leases cannot be told.`,
    );
  }
  const note = STATUS_NOTES[status] ?? unknownStatus(status);
  return { version, generation: generationOfVersion(version), readFrom: `${readFrom}${note}` };
}

const STATUS_NOTES: Record<string, string> = {
  ready: "",
  installed: "; the plugin is installed but not started yet, and this version is the one that will act",
  upgrade_pending:
    "; an upgrade to this version awaits an operator's approval, and nothing acts on CreateOS leases until it is approved",
  disabled:
    "; the plugin is disabled, so nothing acts on CreateOS leases until it is enabled, and then this version does",
  error:
    "; the plugin is in error, so nothing acts on CreateOS leases until it is enabled again, and then this version does",
};

function unknownStatus(status: string): string {
  return `; its status ${quoted(status)} is not one Paperclip defines, and this version is taken as the one that acts`;
}

function unknown(readFrom: string): InstalledPlugin {
  return { version: null, generation: null, readFrom };
}

/** A version as Paperclip writes one (a manifest's semver); anything else is not shown. */
function plainVersion(value: string | null): string | null {
  const trimmed = value?.trim() ?? "";
  return /^[0-9A-Za-z.+_-]{1,64}$/.test(trimmed) ? trimmed : null;
}

/** Text from the database put in a sentence: plain characters only, and not much of it. */
function quoted(value: string): string {
  const plain = value.replace(/[^0-9A-Za-z.@/:+_-]/g, "?").slice(0, 80);
  return `"${plain}"`;
}
