import { readFile } from "node:fs/promises";
import type { SourceSnapshot } from "../../../shared/domain/inventory.js";
import type { Environment, LeaseRow } from "../../../shared/domain/paperclip.js";
import {
  gapsOf,
  parseCompanies,
  parseEnvironment,
  parseEnvironments,
  parseLeaseRow,
  parseLeaseRows,
} from "./rows.js";
import { type LeaseSource, SourceError } from "./source.js";

/**
 * A ledger file: `{ "environments": [...], "leases": [...] }` in Paperclip's own JSON shapes, with an
 * optional `"companies": [{ "id", "name" }]` beside them so the UI can name companies. It is how
 * the demo and the tests feed the program, and how an operator without REST access can export rows.
 * Read afresh on every call, so a re-read before an action sees the file as it is now.
 */
export class LedgerSource implements LeaseSource {
  readonly kind = "ledger" as const;
  readonly id: string;
  readonly path: string;

  constructor(options: { id: string; path: string }) {
    this.id = options.id;
    this.path = options.path;
  }

  async load(): Promise<SourceSnapshot> {
    const ledger = await this.#read();
    const environments = parseEnvironments(ledger.environments, this.id, "environments");
    const leases = parseLeaseRows(ledger.leases, this.id, "leases");
    const companies = parseCompanies(ledger.companies, this.id, "companies");
    return {
      sourceId: this.id,
      environments: environments.rows,
      leases: leases.rows,
      companies: companies.rows,
      problems: [...environments.problems, ...leases.problems, ...companies.problems],
      gaps: [
        ...gapsOf(environments, ledger.environments, "environments"),
        ...gapsOf(leases, ledger.leases, "leases"),
      ],
    };
  }

  async readLease(leaseId: string): Promise<LeaseRow | null> {
    const { leases } = await this.#read();
    const index = leases.findIndex((item) => idOf(item) === leaseId);
    if (index < 0) return null;
    const parsed = parseLeaseRow(leases[index]);
    if (!parsed.ok)
      throw new SourceError(this.id, "malformed", `leases[${index}] is malformed (${parsed.message})`);
    return parsed.row;
  }

  async readEnvironment(environmentId: string): Promise<Environment | null> {
    const { environments } = await this.#read();
    const index = environments.findIndex((item) => idOf(item) === environmentId);
    if (index < 0) return null;
    const parsed = parseEnvironment(environments[index]);
    if (!parsed.ok)
      throw new SourceError(this.id, "malformed", `environments[${index}] is malformed (${parsed.message})`);
    return parsed.environment;
  }

  async #read(): Promise<{ environments: unknown[]; leases: unknown[]; companies: unknown[] }> {
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
      throw new SourceError(this.id, "unreadable", `cannot read ledger file ${this.path} (${code}).`);
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw new SourceError(this.id, "malformed", `ledger file ${this.path} is not valid JSON.`);
    }
    const ledger = raw as { environments?: unknown; leases?: unknown; companies?: unknown } | null;
    if (
      typeof ledger !== "object" ||
      ledger === null ||
      !Array.isArray(ledger.environments) ||
      !Array.isArray(ledger.leases)
    ) {
      throw new SourceError(
        this.id,
        "malformed",
        `ledger file ${this.path} must hold { "environments": [...], "leases": [...] }.`,
      );
    }
    // Names are a convenience: a companies entry that is not a list is read as none (each bad entry of a
    // list is reported on its own), never a reason to refuse the ledger.
    return {
      environments: ledger.environments,
      leases: ledger.leases,
      companies: Array.isArray(ledger.companies) ? ledger.companies : [],
    };
  }
}

function idOf(item: unknown): unknown {
  return typeof item === "object" && item !== null ? (item as { id?: unknown }).id : undefined;
}
