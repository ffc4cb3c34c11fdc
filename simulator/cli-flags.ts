// Flag parsing shared by the simulator and demo CLIs: `--name value` or `--name=value`, repeatable
// flags collected in order, and an error that names the flag at fault.

export class FlagError extends Error {
  override readonly name = "FlagError";
}

export interface FlagSpec {
  /** Flags that take a value, e.g. "port". */
  values: readonly string[];
  /** Value flags that may be given more than once. */
  repeatable?: readonly string[];
  /** Flags without a value, e.g. "help". */
  switches?: readonly string[];
}

export interface ParsedFlags {
  values: Map<string, string[]>;
  switches: Set<string>;
}

export function parseFlags(argv: readonly string[], spec: FlagSpec): ParsedFlags {
  const values = new Map<string, string[]>();
  const switches = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith("--")) throw new FlagError(`unexpected argument "${arg}"`);
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (spec.switches?.includes(name)) {
      if (eq >= 0) throw new FlagError(`--${name} takes no value`);
      switches.add(name);
      continue;
    }
    if (!spec.values.includes(name)) throw new FlagError(`unknown flag --${name}`);
    let value: string | undefined;
    if (eq >= 0) {
      value = arg.slice(eq + 1);
    } else {
      value = argv[i + 1];
      i += 1;
    }
    if (value === undefined || (eq < 0 && value.startsWith("--")))
      throw new FlagError(`--${name} needs a value`);
    const seen = values.get(name) ?? [];
    if (seen.length > 0 && !spec.repeatable?.includes(name)) throw new FlagError(`--${name} given twice`);
    values.set(name, [...seen, value]);
  }
  return { values, switches };
}

export function single(flags: ParsedFlags, name: string): string | undefined {
  return flags.values.get(name)?.[0];
}

export function integerFlag(name: string, raw: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw)) throw new FlagError(`--${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new FlagError(`--${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}
