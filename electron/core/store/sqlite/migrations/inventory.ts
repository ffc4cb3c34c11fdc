import { closedAtMs } from "../../../../../shared/domain/closed-at.js";
import type { Inventory } from "../../../../../shared/domain/inventory.js";
import { recordedMarker } from "../../../../../shared/domain/marker-proof.js";
import type { Database, Migration } from "../migration.js";

/** The inventory cache: the last inventory per source, and the scan-wide part of it. */
export const INVENTORY_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "last inventory per source",
    up(db) {
      db.exec(`
        -- One row per lease source: what its last scan found, for a fast start and for
        -- "new since last scan". payload is JSON { environments, leases, problems } as the
        -- inventory carries them; headlines is JSON { leaseId: headline } for the next comparison.
        CREATE TABLE IF NOT EXISTS source_inventories (
          source_id            TEXT PRIMARY KEY,
          generated_at         TEXT NOT NULL,
          payload              TEXT NOT NULL,
          headlines            TEXT NOT NULL,
          new_since_last_scan  TEXT NOT NULL
        ) STRICT;

        -- The scan-wide part of the last inventory: request count, untracked sandboxes and the
        -- health of each listing, plus which sources it covered. A single row.
        CREATE TABLE IF NOT EXISTS last_scan (
          id            INTEGER PRIMARY KEY CHECK (id = 1),
          generated_at  TEXT NOT NULL,
          requests      INTEGER NOT NULL,
          source_ids    TEXT NOT NULL,
          payload       TEXT NOT NULL
        ) STRICT;
      `);
    },
  },
];

/** Appended after the action engine's version 2: background saves write an inventory in chunks. */
export const INVENTORY_CHUNK_MIGRATIONS: readonly Migration[] = [
  {
    version: 3,
    name: "inventory payload in chunks by generation",
    up(db) {
      db.exec(`
        -- Every background save of an inventory takes a new generation id (never reused) and writes
        -- each source's payload JSON as consecutive pieces under it; a source row names the generation
        -- its payload is in (NULL: the payload column holds it whole, as a synchronous save writes it).
        -- A source row switches generation only in the save's last, small transaction, so a save that
        -- stops half-way leaves the previous inventory whole; pieces no row names are swept later.
        CREATE TABLE IF NOT EXISTS inventory_generations (
          id          INTEGER PRIMARY KEY AUTOINCREMENT,
          started_at  TEXT NOT NULL
        ) STRICT;

        CREATE TABLE IF NOT EXISTS inventory_chunks (
          generation  INTEGER NOT NULL,
          source_id   TEXT NOT NULL,
          seq         INTEGER NOT NULL,
          data        TEXT NOT NULL,
          PRIMARY KEY (generation, source_id, seq)
        ) STRICT;
      `);
      const columns = db.prepare("PRAGMA table_info(source_inventories)").all() as { name: string }[];
      if (!columns.some((column) => column.name === "generation"))
        db.exec("ALTER TABLE source_inventories ADD COLUMN generation INTEGER");
    },
  },
];

/**
 * Appended after the plans' version 60: the inventory kept row by row, each save writing only the
 * rows that changed (store/inventory-save.ts). The cache in the older tables is carried over as it is.
 */
export const INVENTORY_ROW_MIGRATIONS: readonly Migration[] = [
  {
    version: 61,
    name: "inventory kept row by row",
    up(db) {
      db.exec(`
        -- One row per lease of the last inventory. data is the classified lease's JSON; the other
        -- columns are what history's pages and a save's comparison read without parsing it: version is
        -- a digest of everything the row was written from, seq its place in its source's order, and
        -- observed_from the listing whose time (last_scan's payload.observedAt) stands for its
        -- provider.observedAt (NULL: data holds its own).
        CREATE TABLE inventory_rows (
          source_id       TEXT NOT NULL,
          lease_id        TEXT NOT NULL,
          seq             INTEGER NOT NULL,
          headline        TEXT NOT NULL,
          closed_at_ms    INTEGER NOT NULL,
          environment_id  TEXT,
          provider_code   TEXT,
          version         TEXT NOT NULL,
          observed_from   TEXT,
          data            TEXT NOT NULL,
          PRIMARY KEY (source_id, lease_id)
        ) STRICT;
        CREATE INDEX inventory_rows_history ON inventory_rows (headline, closed_at_ms DESC);

        -- What a source's last scan found beside its rows (environments and problems, as JSON), and the
        -- generation of the save that wrote its rows: a save compares with it before it applies.
        CREATE TABLE inventory_sources (
          source_id            TEXT PRIMARY KEY,
          generated_at         TEXT NOT NULL,
          generation           INTEGER NOT NULL,
          payload              TEXT NOT NULL,
          new_since_last_scan  TEXT NOT NULL
        ) STRICT;

        -- A save's changes, staged under its generation before one transaction applies them.
        -- change: write (data and columns as inventory_rows), move (seq only) or delete.
        CREATE TABLE inventory_row_changes (
          generation      INTEGER NOT NULL,
          source_id       TEXT NOT NULL,
          lease_id        TEXT NOT NULL,
          change          TEXT NOT NULL CHECK (change IN ('write', 'move', 'delete')),
          seq             INTEGER NOT NULL,
          headline        TEXT,
          closed_at_ms    INTEGER,
          environment_id  TEXT,
          provider_code   TEXT,
          version         TEXT,
          observed_from   TEXT,
          data            TEXT,
          PRIMARY KEY (generation, source_id, lease_id)
        ) STRICT;
      `);
      carryOverChunkedInventory(db);
      db.exec("DROP TABLE inventory_chunks; DROP TABLE source_inventories;");
    },
  },
];

/**
 * The inventory the chunked tables held, as rows. Versions are left empty, so the first save writes
 * every row again (in the format and with the keys redacted as they are then).
 */
function carryOverChunkedInventory(db: Database): void {
  const sources = db
    .prepare(
      "SELECT source_id, generated_at, payload, new_since_last_scan, generation FROM source_inventories",
    )
    .all() as {
    source_id: string;
    generated_at: string;
    payload: string;
    new_since_last_scan: string;
    generation: number | null;
  }[];
  const readChunks = db
    .prepare("SELECT data FROM inventory_chunks WHERE generation = ? AND source_id = ? ORDER BY seq")
    .pluck();
  const insertRow = db.prepare(`
    INSERT OR IGNORE INTO inventory_rows
      (source_id, lease_id, seq, headline, closed_at_ms, environment_id, provider_code, version, observed_from, data)
    VALUES (?, ?, ?, ?, ?, ?, ?, '', NULL, ?)`);
  const insertSource = db.prepare(
    "INSERT INTO inventory_sources (source_id, generated_at, generation, payload, new_since_last_scan) VALUES (?, ?, 0, ?, ?)",
  );
  // Each source in a savepoint of its own: one whose cache cannot be read leaves none of its rows.
  const carryOver = db.transaction((source: (typeof sources)[number]) => {
    const json =
      source.generation === null
        ? source.payload
        : (readChunks.all(source.generation, source.source_id) as string[]).join("");
    const payload = JSON.parse(json) as Pick<Inventory, "environments" | "leases" | "problems">;
    payload.leases.forEach((classified, seq) => {
      insertRow.run(
        source.source_id,
        classified.lease.id,
        seq,
        classified.verdict.headline,
        closedAtMs(classified),
        classified.environment?.id ?? classified.lease.environmentId ?? null,
        classified.provider?.code ?? null,
        JSON.stringify(classified),
      );
    });
    insertSource.run(
      source.source_id,
      source.generated_at,
      JSON.stringify({ environments: payload.environments, problems: payload.problems }),
      source.new_since_last_scan,
    );
  });
  for (const source of sources) {
    try {
      carryOver(source);
    } catch {
      // A cache that cannot be read is not carried over (nor may it stop the database from opening):
      // the next scan writes it afresh.
    }
  }
}

/**
 * Appended after version 61: the inventory judged into the store row by row as a scan streams
 * (decision 222). Each row keeps, beside its JSON, what a scan compares it with (the digest of what it
 * was judged from, and when the time alone may change its verdict), what ties it to others (the sandbox
 * it names and where), what the table's view holds of it, and what history's search reads. The rows a
 * database kept before are not carried over: it is a cache of the last scan, and the first scan after
 * the upgrade writes it again (until then nothing stored is shown: the last view belongs to a scan the
 * store no longer holds).
 */
export const INVENTORY_JUDGED_MIGRATIONS: readonly Migration[] = [
  {
    version: 62,
    name: "inventory judged into the store",
    up(db) {
      db.exec(`
        DROP TABLE inventory_row_changes;
        DROP TABLE inventory_rows;
        DELETE FROM inventory_sources;
        DELETE FROM last_scan;

        -- One row per lease of the last inventory.
        --   seq             its place in its source's order (a ledger's, the REST API's); 0 in a source
        --                   ordered by lease id (Paperclip's database)
        --   environment_id  the environment it is listed under; environment_known 0 when its source
        --                   does not list it; company_id the row's own company
        --   origin, sandbox_id  where its sandbox is asked about, and which sandbox it names;
        --                   shared_count how many other leases it was judged with on that sandbox
        --   inputs          a digest of what it was judged from but the other rows on its sandbox;
        --                   rejudge_at_ms when the time alone may change its verdict (NULL: never)
        --   version         a digest of data and observed_from: a row is written when it changes
        --   observed_from   the listing whose time (last_scan's payload.observedAt) stands for its
        --                   provider.observedAt (NULL: data holds its own)
        --   view_row        the row as the table's view holds it (LeaseViewRow JSON)
        --   search_text     a closed row's text as history's search reads it (NULL for a live row)
        --   data            the classified lease's JSON, configured keys taken out
        CREATE TABLE inventory_rows (
          source_id          TEXT NOT NULL,
          lease_id           TEXT NOT NULL,
          seq                INTEGER NOT NULL,
          headline           TEXT NOT NULL,
          closed_at_ms       INTEGER NOT NULL,
          environment_id     TEXT,
          environment_known  INTEGER NOT NULL,
          company_id         TEXT,
          provider_code      TEXT NOT NULL,
          origin             TEXT,
          sandbox_id         TEXT,
          shared_count       INTEGER NOT NULL,
          inputs             TEXT NOT NULL,
          rejudge_at_ms      INTEGER,
          version            TEXT NOT NULL,
          observed_from      TEXT,
          view_row           TEXT NOT NULL,
          search_text        TEXT,
          data               TEXT NOT NULL,
          PRIMARY KEY (source_id, lease_id)
        ) STRICT;
        CREATE INDEX inventory_rows_history ON inventory_rows (headline, closed_at_ms DESC);
        CREATE INDEX inventory_rows_counts ON inventory_rows (source_id, environment_id, headline);
        CREATE INDEX inventory_rows_sandbox ON inventory_rows (sandbox_id, source_id, lease_id)
          WHERE sandbox_id IS NOT NULL;
        CREATE INDEX inventory_rows_origin ON inventory_rows (origin) WHERE origin IS NOT NULL;
        CREATE INDEX inventory_rows_due ON inventory_rows (rejudge_at_ms) WHERE rejudge_at_ms IS NOT NULL;
        CREATE INDEX inventory_rows_live ON inventory_rows (source_id, seq, lease_id) WHERE headline <> 'closed';

        -- A scan's changes, staged under its generation before one transaction applies them.
        -- change: write (every column as inventory_rows), move (seq only) or delete.
        CREATE TABLE inventory_row_changes (
          generation         INTEGER NOT NULL,
          source_id          TEXT NOT NULL,
          lease_id           TEXT NOT NULL,
          change             TEXT NOT NULL CHECK (change IN ('write', 'move', 'delete')),
          seq                INTEGER NOT NULL,
          headline           TEXT,
          closed_at_ms       INTEGER,
          environment_id     TEXT,
          environment_known  INTEGER,
          company_id         TEXT,
          provider_code      TEXT,
          origin             TEXT,
          sandbox_id         TEXT,
          shared_count       INTEGER,
          inputs             TEXT,
          rejudge_at_ms      INTEGER,
          version            TEXT,
          observed_from      TEXT,
          view_row           TEXT,
          search_text        TEXT,
          data               TEXT,
          PRIMARY KEY (generation, source_id, lease_id)
        ) STRICT;
        CREATE INDEX inventory_row_changes_sandbox ON inventory_row_changes (generation, sandbox_id)
          WHERE sandbox_id IS NOT NULL;
      `);
    },
  },
];

/**
 * Appended after version 62: the store's own random seed for the salt a row's inputs begin with
 * (decision 224). The salt is drawn from the rules' fingerprint and the configured keys through scrypt
 * with this seed, so two processes of one build with the same keys judge under the same salt (a
 * restart keeps what the store holds), and no digest at rest is a cheap test of a guessed key.
 */
export const INVENTORY_JUDGING_SEED_MIGRATIONS: readonly Migration[] = [
  {
    version: 63,
    name: "a seed for the salt rows are judged under",
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS inventory_judging (
          id    INTEGER PRIMARY KEY CHECK (id = 1),
          seed  TEXT NOT NULL
        ) STRICT;
      `);
    },
  },
];

/**
 * Appended after version 63: every row in its source's order, so a reader can page through the whole
 * inventory (`StoredInventory.page`, what `leasekeeper scan` prints) a page at a time, each page one
 * seek, instead of holding every row; and the rows of a headline in a source, so a read by headline (the
 * metrics' rows, a janitor's plan, a plan of a headline) reads those rows, not the source's. The live
 * rows' partial index orders only the rows not closed.
 */
export const INVENTORY_ORDER_MIGRATIONS: readonly Migration[] = [
  {
    version: 64,
    name: "every stored row in its source's order, and by headline",
    up(db) {
      db.exec(`
        CREATE INDEX IF NOT EXISTS inventory_rows_order ON inventory_rows (source_id, seq, lease_id);
        CREATE INDEX IF NOT EXISTS inventory_rows_headline ON inventory_rows (source_id, headline, seq, lease_id);
      `);
    },
  },
];

/**
 * Appended after version 64: the marker each row records (`recordedMarker`), in a column of its own with
 * an index, so a proof finds the rows recording the markers its reads found by that index instead of
 * parsing every stored row. Rows stored before are given theirs from their JSON here, once.
 */
export const INVENTORY_MARKER_MIGRATIONS: readonly Migration[] = [
  {
    version: 65,
    name: "the marker each stored row records, indexed",
    up(db) {
      for (const table of ["inventory_rows", "inventory_row_changes"]) {
        const has = db.prepare(`SELECT 1 FROM pragma_table_info('${table}') WHERE name = 'marker'`).get();
        if (has === undefined) db.exec(`ALTER TABLE ${table} ADD COLUMN marker TEXT`);
      }
      db.function("leasekeeper_recorded_marker", { deterministic: true }, (data) =>
        typeof data === "string" ? storedRowMarker(data) : null,
      );
      db.exec(`
        UPDATE inventory_rows SET marker = leasekeeper_recorded_marker(data) WHERE marker IS NULL;
        UPDATE inventory_row_changes SET marker = leasekeeper_recorded_marker(data)
          WHERE marker IS NULL AND change = 'write';
        CREATE INDEX IF NOT EXISTS inventory_rows_marker ON inventory_rows (marker, source_id, lease_id)
          WHERE marker IS NOT NULL;
      `);
    },
  },
];

/** The marker a stored row's JSON records; null when it records none or cannot be read. */
function storedRowMarker(data: string): string | null {
  try {
    const classified = JSON.parse(data) as { lease?: { metadata?: unknown } };
    return recordedMarker(classified.lease?.metadata);
  } catch {
    return null;
  }
}

/**
 * Appended after version 65: the live rows' index carries each row's view, so the view of every row not
 * closed is read from the index alone, in order. Read through the table, each row was fetched where it
 * is stored, at random in a source whose rows are stored out of its order (Paperclip's database hands
 * its rows over unsorted); the view is put together again after every scan.
 */
export const INVENTORY_LIVE_VIEW_MIGRATIONS: readonly Migration[] = [
  {
    version: 66,
    name: "the live rows' view held in their index",
    up(db) {
      db.exec(`
        DROP INDEX IF EXISTS inventory_rows_live;
        CREATE INDEX inventory_rows_live ON inventory_rows (source_id, seq, lease_id, view_row)
          WHERE headline <> 'closed';
      `);
    },
  },
];

/**
 * Appended after version 66: what the last scan leaves for the next (`ScanMemory`), kept beside its
 * rows so that a process started again over the store reads only what changed since (decision 238).
 * The listings are kept as a digest of each entry; the rest is one row of JSON. It stands only while
 * the sources still hold the rows flipped under its `generation`.
 */
export const INVENTORY_SCAN_MEMORY_MIGRATIONS: readonly Migration[] = [
  {
    version: 67,
    name: "the last scan's memory kept for the next process",
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS scan_memory (
          id          INTEGER PRIMARY KEY CHECK (id = 1),
          generation  INTEGER NOT NULL,
          memory      TEXT NOT NULL
        ) STRICT;
        CREATE TABLE IF NOT EXISTS scan_memory_listing (
          origin      TEXT NOT NULL,
          sandbox_id  TEXT NOT NULL,
          entry       TEXT NOT NULL,
          PRIMARY KEY (origin, sandbox_id)
        ) STRICT, WITHOUT ROWID;
      `);
    },
  },
];

/**
 * Appended after version 71: a ledger's item digests, kept with the scan's memory (decision 313) so that
 * a process started again reads only the items whose bytes changed, as the process that read it would
 * have. One row per ledger source, sealed under a key drawn from the judging salt; the memory names the
 * sealing (`token`) that is its own, and a row it does not name is not read.
 */
export const INVENTORY_LEDGER_ITEMS_MIGRATIONS: readonly Migration[] = [
  {
    version: 72,
    name: "a ledger's item digests kept with the scan's memory",
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS scan_memory_ledger_items (
          source_id  TEXT PRIMARY KEY,
          token      TEXT NOT NULL,
          sealed     BLOB NOT NULL
        ) STRICT;
      `);
    },
  },
];

/**
 * Appended after version 67: each stored row's ownership codes in a column of their own (its verdict's
 * `ownership`, as JSON), so a janitor's rule naming ownership codes reads only the rows that may hold
 * them. Most rows are history, which no rule selects, or the environment's own and nothing else
 * (`["owned"]`); the index holds the other live rows, so a rule for foreign or unreadable rows reads
 * those alone.
 */
export const INVENTORY_OWNERSHIP_MIGRATIONS: readonly Migration[] = [
  {
    version: 68,
    name: "the ownership codes of each stored row, indexed apart from the owned",
    up(db) {
      for (const table of ["inventory_rows", "inventory_row_changes"]) {
        const has = db.prepare(`SELECT 1 FROM pragma_table_info('${table}') WHERE name = 'ownership'`).get();
        if (has === undefined) db.exec(`ALTER TABLE ${table} ADD COLUMN ownership TEXT`);
      }
      db.function("leasekeeper_ownership_codes", { deterministic: true }, (data) =>
        typeof data === "string" ? storedRowOwnership(data) : null,
      );
      db.exec(`
        UPDATE inventory_rows SET ownership = leasekeeper_ownership_codes(data) WHERE ownership IS NULL;
        UPDATE inventory_row_changes SET ownership = leasekeeper_ownership_codes(data)
          WHERE ownership IS NULL AND change = 'write';
        CREATE INDEX IF NOT EXISTS inventory_rows_ownership ON inventory_rows (source_id, ownership)
          WHERE ownership IS NOT '["owned"]' AND headline <> 'closed';
      `);
    },
  },
];

/** The ownership codes a stored row's JSON holds, as the column keeps them; null when it cannot be read. */
function storedRowOwnership(data: string): string | null {
  try {
    const classified = JSON.parse(data) as { verdict?: { ownership?: unknown } };
    const codes = classified.verdict?.ownership;
    return Array.isArray(codes) && codes.every((code) => typeof code === "string")
      ? JSON.stringify(codes)
      : null;
  } catch {
    return null;
  }
}
