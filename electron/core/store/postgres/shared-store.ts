import type { MarkerProof } from "../../../../shared/domain/marker-proof.js";
import type { SandboxClaims } from "../../actions/claims/claims.js";
import type { JobJournal } from "../../actions/journal/journal.js";
import type { SharedAuditLog } from "../../actions/ports.js";
import type { LeasekeeperConfig } from "../../config/load.js";
import { CoreError } from "../../errors/core-error.js";
import type { TakenRecord } from "../janitor-taken-store.js";
import type { PgQuarantines } from "./pg-quarantines.js";
import { openPostgresStore, type PostgresStore, sharedStoreFailure } from "./store.js";

/**
 * The shared store as the engine takes it: built at once, connected and migrated on first use, so the
 * hosts that build an engine synchronously need not change. A store that cannot be opened fails the
 * first call that needs it (a job then stops before sending anything) with a message naming the
 * variable, never its value.
 */
export interface SharedStore {
  readonly claims: SandboxClaims;
  readonly audit: SharedAuditLog;
  /** Plans, jobs and their items, shared: a plan runs once from any machine, a job is resumed by one. */
  readonly journal: JobJournal;
  /** Marker proofs, so a proof made on one machine is the evidence every machine shows. */
  readonly proofs: SharedProofs;
  /** Quarantines, so every machine lists, counts down, cancels and finishes the same ones. */
  readonly quarantines: SharedQuarantines;
  /** The plans a janitor's rules took, so every watcher of a policy counts and resumes them alike. */
  readonly janitorTaken: SharedJanitorTaken;
  close(): Promise<void>;
}

export type SharedQuarantines = Pick<
  PgQuarantines,
  "insert" | "get" | "list" | "listOpenByDue" | "pauseSentAt" | "markPauseSent" | "update"
>;

export interface SharedProofs {
  save(proofs: readonly MarkerProof[]): Promise<void>;
  all(): Promise<MarkerProof[]>;
}

export interface SharedJanitorTaken {
  note(record: TakenRecord): Promise<void>;
  find(planIds: readonly string[]): Promise<TakenRecord[]>;
}

/** The configured shared store, or null when the config keeps everything in the SQLite file. */
export function sharedStoreFor(config: LeasekeeperConfig, env: NodeJS.ProcessEnv): SharedStore | null {
  const store = config.store;
  if (store === undefined || store.kind !== "postgres") return null;
  const url = env[store.urlEnv]?.trim();
  let opening: Promise<PostgresStore> | null = null;
  const opened = () => {
    // Never a quiet fall-back to this machine's claims: that would let two machines act on one sandbox.
    if (!url)
      return Promise.reject(
        new CoreError("store", "not-configured", `The shared store variable ${store.urlEnv} is not set.`),
      );
    opening ??= openPostgresStore({ url, urlEnv: store.urlEnv, timeoutMs: config.requestTimeoutMs });
    // A failed open is tried again by the next call rather than remembered for ever.
    opening.catch(() => {
      opening = null;
    });
    return opening;
  };
  return {
    claims: {
      claim: async (...args) => (await opened()).claims.claim(...args),
      release: async (...args) => (await opened()).claims.release(...args),
      renew: async (...args) => (await opened()).claims.renew(...args),
      releaseOwner: async (...args) => (await opened()).claims.releaseOwner(...args),
      holderOf: async (...args) => (await opened()).claims.holderOf(...args),
    },
    audit: {
      append: async (records) => (await opened()).audit.append(records),
      query: async (query, limit) => (await opened()).audit.query(query, limit),
      page: async (query, options) => (await opened()).audit.page(query, options),
    },
    proofs: {
      // Worded from the SQLSTATE alone: server text may quote the URL's user or host.
      save: async (proofs) =>
        (await opened()).proofs.save(proofs).catch((error: unknown) => {
          throw sharedStoreFailure(
            "The marker proofs could not be kept in the shared store",
            store.urlEnv,
            error,
          );
        }),
      all: async () =>
        (await opened()).proofs.all().catch((error: unknown) => {
          throw sharedStoreFailure(
            "The marker proofs could not be read from the shared store",
            store.urlEnv,
            error,
          );
        }),
    },
    quarantines: {
      insert: async (...args) => (await opened()).quarantines.insert(...args),
      get: async (...args) => (await opened()).quarantines.get(...args),
      list: async (...args) => (await opened()).quarantines.list(...args),
      listOpenByDue: async (...args) => (await opened()).quarantines.listOpenByDue(...args),
      pauseSentAt: async (...args) => (await opened()).quarantines.pauseSentAt(...args),
      markPauseSent: async (...args) => (await opened()).quarantines.markPauseSent(...args),
      update: async (...args) => (await opened()).quarantines.update(...args),
    },
    janitorTaken: {
      // Worded from the SQLSTATE alone, as the proofs' are.
      note: async (record) =>
        (await opened()).janitorTaken.note(record).catch((error: unknown) => {
          throw sharedStoreFailure(
            "The plan a janitor's rule took could not be noted in the shared store",
            store.urlEnv,
            error,
          );
        }),
      find: async (planIds) =>
        (await opened()).janitorTaken.find(planIds).catch((error: unknown) => {
          throw sharedStoreFailure(
            "The plans the janitor's rules took could not be read from the shared store",
            store.urlEnv,
            error,
          );
        }),
    },
    journal: {
      savePlan: async (...args) => (await opened()).journal.savePlan(...args),
      loadPlan: async (...args) => (await opened()).journal.loadPlan(...args),
      createJob: async (...args) => (await opened()).journal.createJob(...args),
      cancelPlan: async (...args) => (await opened()).journal.cancelPlan(...args),
      plannedAccount: async (...args) => (await opened()).journal.plannedAccount(...args),
      pinPlannedAccount: async (...args) => (await opened()).journal.pinPlannedAccount(...args),
      markSending: async (...args) => (await opened()).journal.markSending(...args),
      markRunning: async (...args) => (await opened()).journal.markRunning(...args),
      finishItems: async (...args) => (await opened()).journal.finishItems(...args),
      appendAudit: async (...args) => (await opened()).journal.appendAudit(...args),
      setJobState: async (...args) => (await opened()).journal.setJobState(...args),
      markInterrupted: async (...args) => (await opened()).journal.markInterrupted(...args),
      heartbeat: async (...args) => (await opened()).journal.heartbeat(...args),
      jobRow: async (...args) => (await opened()).journal.jobRow(...args),
      jobRowsInState: async (...args) => (await opened()).journal.jobRowsInState(...args),
      recentJobs: async (...args) => (await opened()).journal.recentJobs(...args),
      newestJobOfPlan: async (...args) => (await opened()).journal.newestJobOfPlan(...args),
      items: async (...args) => (await opened()).journal.items(...args),
      job: async (...args) => (await opened()).journal.job(...args),
    },
    async close() {
      const pending = opening;
      opening = null;
      if (pending !== null) await (await pending.catch(() => null))?.close();
    },
  };
}
