/**
 * The audit log keeps the metadata a verdict was judged on, minus what must never be written down: the
 * workspace marker authenticates a sandbox on resume (kept to its first 8 characters), and any key named
 * like a credential is dropped whatever its value (a hand-built row may carry one). Values equal to a
 * configured API key are dropped too, wherever they sit, and a key inside a longer text is cut out. Depth and size are bounded so a hostile row
 * cannot bloat the log.
 */

const SECRET_KEY_PATTERN =
  /api[-_]?key|token|secret|password|passwd|authorization|credential|private[-_]?key/i;
const MARKER_KEY_PATTERN = /marker|sentinel/i;
const MARKER_PREFIX = 8;
const MAX_DEPTH = 6;
const MAX_STRING = 2_000;
const MAX_KEYS = 200;

function isSecretKey(key: string): boolean {
  return SECRET_KEY_PATTERN.test(key);
}

function redactMarker(value: string): string {
  return value.length <= MARKER_PREFIX ? "…" : `${value.slice(0, MARKER_PREFIX)}…`;
}

export function redactEvidence(
  metadata: unknown,
  knownSecrets: ReadonlySet<string> = new Set(),
): Record<string, unknown> | null {
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) {
    return metadata === null || metadata === undefined
      ? null
      : { value: redactValue(metadata, knownSecrets, 0, false) };
  }
  return redactObject(metadata, knownSecrets, 0);
}

function redactObject(value: object, secrets: ReadonlySet<string>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  let kept = 0;
  for (const key of Object.keys(value)) {
    if (kept >= MAX_KEYS) {
      out["…"] = "truncated";
      break;
    }
    if (isSecretKey(key)) continue;
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor === undefined || !("value" in descriptor)) continue;
    const redacted = redactValue(descriptor.value, secrets, depth + 1, MARKER_KEY_PATTERN.test(key));
    if (redacted === DROP) continue;
    out[key] = redacted;
    kept += 1;
  }
  // A plain object again, so JSON.stringify and the CSV writer treat it as any other.
  return { ...out };
}

const DROP = Symbol("drop");

/** A key pasted inside a longer text ("copied from a shell: sk-…") is cut out of it. */
export function withoutSecrets(value: string, secrets: ReadonlySet<string>): string {
  let out = value;
  for (const secret of secrets)
    if (secret.length >= 8 && out.includes(secret)) out = out.split(secret).join("[redacted]");
  return out;
}

function redactValue(
  value: unknown,
  secrets: ReadonlySet<string>,
  depth: number,
  isMarker: boolean,
): unknown {
  if (typeof value === "string") {
    if (secrets.has(value) || secrets.has(value.trim())) return DROP;
    if (isMarker) return redactMarker(value);
    const scrubbed = withoutSecrets(value, secrets);
    return scrubbed.length > MAX_STRING ? `${scrubbed.slice(0, MAX_STRING)}…` : scrubbed;
  }
  if (value === null || typeof value !== "object") return isMarker && value !== null ? "…" : value;
  if (depth >= MAX_DEPTH) return "…";
  if (Array.isArray(value)) {
    return value
      .slice(0, MAX_KEYS)
      .map((entry) => redactValue(entry, secrets, depth + 1, isMarker))
      .filter((entry) => entry !== DROP);
  }
  return redactObject(value, secrets, depth);
}
