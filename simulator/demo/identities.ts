import { DEFAULT_REGION } from "../catalog.js";
import { encodeUlid } from "../ids.js";
import type { Random } from "../random.js";
import type { LedgerEnvironment } from "./ledger.js";

// Who is in the demo world: companies, their environments, and the CreateOS accounts (keys) the
// environments' sandboxes live in.

export interface Company {
  id: string;
  slug: string;
  /** What the operator reads instead of the id. */
  name: string;
}

export interface DemoAccount {
  index: number;
  apiKey: string;
  userId: string;
  /** The environment variable the config names instead of the key. */
  keyEnv: string;
}

export interface DemoEnvironment {
  row: LedgerEnvironment;
  company: Company;
  account: DemoAccount;
}

const COMPANY_SLUGS =
  "acme globex initech umbrella hooli soylent vandelay wonka tyrell aperture cyberdyne piedpiper".split(" ");
const COMPANY_NAMES = [
  "Acme Robotics",
  "Globex",
  "Initech",
  "Umbrella Labs",
  "Hooli",
  "Soylent Foods",
  "Vandelay Industries",
  "Wonka Works",
  "Tyrell Systems",
  "Aperture Science",
  "Cyberdyne",
  "Pied Piper",
];
const STAGES = ["prod", "staging", "dev"];
const PURPOSES = ["agents", "ci", "evals", "codegen", "review", "support", "research", "ops"];
const ENV_SHAPES = ["s-1vcpu-1gb", "s-1vcpu-2gb", "s-2vcpu-2gb", "s-2vcpu-4gb", "s-4vcpu-8gb"];

// Ids are built from character codes into flat strings: a 20,000-lease world holds some 150,000
// of them, and concatenated (rope) strings would double its memory and its garbage collection.
const HEX_CODES = Array.from("0123456789abcdef", (digit) => digit.charCodeAt(0));
const DASH = "-".charCodeAt(0);

/** `count` lowercase hex digits into `codes` from `at`, eight per draw of the seeded source. */
function hexInto(random: Random, codes: number[], at: number, count: number): void {
  for (let i = 0; i < count; i += 8) {
    const draw = Math.floor(random.next() * 0x1_0000_0000);
    for (let j = 0; j < 8 && i + j < count; j++)
      codes[at + i + j] = HEX_CODES[(draw >>> (28 - 4 * j)) & 15] as number;
  }
}

export function hex(random: Random, bytes: number): string {
  const codes = new Array<number>(bytes * 2);
  hexInto(random, codes, 0, bytes * 2);
  return String.fromCharCode(...codes);
}

/** A version-4 UUID drawn from the seeded source. */
export function uuid(random: Random): string {
  const codes = new Array<number>(36);
  hexInto(random, codes, 0, 8);
  hexInto(random, codes, 9, 4);
  hexInto(random, codes, 14, 4);
  hexInto(random, codes, 19, 4);
  hexInto(random, codes, 24, 12);
  codes[8] = codes[13] = codes[18] = codes[23] = DASH;
  codes[14] = "4".charCodeAt(0);
  codes[19] = "89ab".charCodeAt((codes[19] as number) & 3);
  return String.fromCharCode(...codes);
}

/** `sb-<ULID>` whose time part is the creation time, as the control plane mints them. */
export function sandboxId(random: Random, createdMs: number): string {
  return `sb-${encodeUlid(createdMs, random.bytes(10))}`;
}

export function makeCompanies(random: Random, count: number): Company[] {
  return Array.from({ length: count }, (_, i) => {
    const round = i < COMPANY_SLUGS.length ? "" : String(Math.floor(i / COMPANY_SLUGS.length) + 1);
    return {
      id: uuid(random),
      slug: `${COMPANY_SLUGS[i % COMPANY_SLUGS.length]}${round}`,
      name: `${COMPANY_NAMES[i % COMPANY_NAMES.length]}${round ? ` ${round}` : ""}`,
    };
  });
}

export function makeAccounts(random: Random, count: number): DemoAccount[] {
  return Array.from({ length: count }, (_, index) => ({
    index,
    apiKey: `cos_demo_${hex(random, 20)}`,
    userId: uuid(random),
    keyEnv: `LEASEKEEPER_DEMO_KEY_${index + 1}`,
  }));
}

/**
 * Environments go round-robin over companies and accounts, so neighbours differ in both. Every
 * fifth environment is ephemeral (no lease reuse); with six or more, the last one is archived.
 */
export function makeEnvironments(
  random: Random,
  count: number,
  companies: Company[],
  accounts: DemoAccount[],
  apiUrl: string,
): DemoEnvironment[] {
  const namesTaken = new Set<string>();
  return Array.from({ length: count }, (_, i) => {
    const company = companies[i % companies.length] as Company;
    const archived = count >= 6 && i === count - 1;
    const reuseLease = archived || i % 5 !== 4;
    const row: LedgerEnvironment = {
      id: uuid(random),
      companyId: company.id,
      name: environmentName(random, company.slug, namesTaken),
      driver: "sandbox",
      status: archived ? "archived" : "active",
      config: {
        provider: "createos",
        apiUrl,
        shape: random.pick(ENV_SHAPES),
        rootfs: random.next() < 0.8 ? "devbox:1" : "node",
        region: DEFAULT_REGION,
        reuseLease,
        timeoutMs: random.pick([300_000, 300_000, 600_000, 900_000]),
      },
    };
    return { row, company, account: accounts[i % accounts.length] as DemoAccount };
  });
}

function environmentName(random: Random, company: string, taken: Set<string>): string {
  for (let attempt = 0; ; attempt++) {
    const base = `${company}-${random.pick(STAGES)}-${random.pick(PURPOSES)}`;
    const name = attempt < 20 ? base : `${base}-${attempt}`;
    if (!taken.has(name)) {
      taken.add(name);
      return name;
    }
  }
}

/** A shape other than `shape`, for leases acquired before the environment was resized. */
export function otherShape(random: Random, shape: string): string {
  return random.pick(ENV_SHAPES.filter((candidate) => candidate !== shape));
}
