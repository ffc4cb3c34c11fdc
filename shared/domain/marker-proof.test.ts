import { describe, expect, it } from "vitest";
import {
  buildMarkerIndex,
  judgeMarker,
  MARKER_PATH,
  type MarkerReading,
  type MarkerSubject,
  recordedMarker,
} from "./marker-proof.js";
import { MARKER, meta, row, SANDBOX } from "./test-fixtures.js";

const OTHER_MARKER = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
const STRAY_MARKER = "a3bb189e-8bf9-3888-9912-ace4e6543002";

const ours = row({ id: "lease-ours", metadata: meta() });
const lostItsSandbox = row({
  id: "lease-lost",
  providerLeaseId: null,
  metadata: meta({ marker: OTHER_MARKER }),
});
const nestedOldSchema = row({
  id: "lease-nested",
  providerLeaseId: "sbx_elsewhere",
  metadata: { providerMetadata: { marker: STRAY_MARKER.replace("a3", "b4") } },
});
const index = buildMarkerIndex(
  [ours, lostItsSandbox, nestedOldSchema].map((lease) => ({ sourceId: "paperclip", lease })),
);

const forOurs: MarkerSubject = {
  sandboxId: SANDBOX,
  lease: { sourceId: "paperclip", leaseId: ours.id, metadata: ours.metadata },
};
const untracked: MarkerSubject = { sandboxId: "sbx_orphan", lease: null };

const read = (
  stdout: string,
  extra: Partial<Extract<MarkerReading, { kind: "read" }>> = {},
): MarkerReading => ({
  kind: "read",
  sandboxStatus: "running",
  exitCode: 0,
  stdout,
  stderr: "",
  error: null,
  ...extra,
});
const missing = read("", { exitCode: 1, stderr: `cat: ${MARKER_PATH}: No such file or directory\n` });

describe("judging a marker read", () => {
  it.each<[string, MarkerReading, MarkerSubject, string, string | null]>([
    ["the sandbox holds the row's own marker", read(MARKER), forOurs, "proven", null],
    ["it holds another row's marker", read(OTHER_MARKER), forOurs, "another-lease", null],
    ["the marker file is absent", missing, forOurs, "no-marker", "file-absent"],
    ["the marker file is empty", read(""), forOurs, "no-marker", "empty"],
    [
      "the path is a directory",
      read("", { exitCode: 1, stderr: "cat: x: Is a directory\n" }),
      forOurs,
      "no-marker",
      "not-a-workspace",
    ],
    ["the file holds something that is no marker", read("hello\n"), forOurs, "no-marker", "not-a-workspace"],
    ["a marker nobody records", read(STRAY_MARKER), forOurs, "no-marker", "unrecorded-marker"],
    [
      "a trailing newline: the plugin's exact comparison fails",
      read(`${MARKER}\n`),
      forOurs,
      "no-marker",
      "not-a-workspace",
    ],
    [
      "a paused sandbox is never read",
      { kind: "not-read", reason: "not-running", sandboxStatus: "paused" },
      forOurs,
      "cannot-read",
      "not-running",
    ],
    [
      "a read reported on a paused sandbox proves nothing",
      read(MARKER, { sandboxStatus: "paused" }),
      forOurs,
      "cannot-read",
      "not-running",
    ],
    [
      "an unknown provider state proves nothing",
      read(MARKER, { sandboxStatus: "hibernating" }),
      forOurs,
      "cannot-read",
      "not-running",
    ],
    [
      "cat could not be started",
      read(MARKER, { exitCode: 127, error: "exec: not found" }),
      forOurs,
      "cannot-read",
      "exec-error",
    ],
    ["no exit code", read(MARKER, { exitCode: null }), forOurs, "cannot-read", "exec-error"],
    [
      "cat failed for another reason",
      read("", { exitCode: 1, stderr: "cat: Permission denied\n" }),
      forOurs,
      "cannot-read",
      "exec-error",
    ],
    [
      "a timeout",
      { kind: "not-read", reason: "timeout", sandboxStatus: "running" },
      forOurs,
      "cannot-read",
      "timeout",
    ],
    ["an orphan holding a lost row's marker", read(OTHER_MARKER), untracked, "another-lease", null],
    ["an orphan holding the marker its row also names", read(MARKER), untracked, "another-lease", null],
    ["an orphan with no marker", missing, untracked, "no-marker", "file-absent"],
  ])("%s", (_, reading, subject, answer, reason) => {
    const judged = judgeMarker(reading, subject, index);
    expect(judged.answer).toBe(answer);
    expect(judged.reason).toBe(reason);
  });

  it("names the row that lost its sandbox id as the orphan's owner", () => {
    const judged = judgeMarker(read(OTHER_MARKER), untracked, index);
    expect(judged.owners).toEqual([
      { sourceId: "paperclip", leaseId: "lease-lost", status: "released", relation: "no-sandbox-id" },
    ]);
    expect(judged.message).toBe("This sandbox belongs to lease lease-lost, whose row lost its sandbox id.");
  });

  it("never counts the subject row as another lease", () => {
    const judged = judgeMarker(
      read(MARKER),
      forOurs,
      buildMarkerIndex([{ sourceId: "paperclip", lease: ours }]),
    );
    expect(judged.answer).toBe("proven");
    expect(judged.owners).toEqual([]);
  });

  it("never proves a row whose recorded marker is malformed, even when the file matches it", () => {
    const malformed = row({ metadata: meta({ marker: "wrong" }) });
    const subject = {
      sandboxId: SANDBOX,
      lease: { sourceId: "s", leaseId: malformed.id, metadata: malformed.metadata },
    };
    expect(judgeMarker(read("wrong"), subject, index).answer).toBe("no-marker");
  });

  it("shows only a short prefix of what was read, never the marker", () => {
    for (const reading of [read(MARKER), read(OTHER_MARKER), read(STRAY_MARKER)]) {
      const judged = judgeMarker(reading, forOurs, index);
      const shown = JSON.stringify(judged);
      expect(shown).not.toContain(MARKER);
      expect(shown).not.toContain(OTHER_MARKER);
      expect(shown).not.toContain(STRAY_MARKER);
    }
    expect(judgeMarker(read(MARKER), forOurs, index).markerPrefix).toBe(MARKER.slice(0, 8));
  });

  it("says a cannot-read is no evidence, naming the sandbox's state", () => {
    const judged = judgeMarker(
      { kind: "not-read", reason: "not-running", sandboxStatus: "paused" },
      forOurs,
      index,
    );
    expect(judged.message).toContain("paused");
    expect(judged.message).toContain("no evidence");
  });
});

describe("reading a row's recorded marker", () => {
  it.each<[string, unknown, string | null]>([
    ["flat, as the plugin writes it", meta(), MARKER],
    ["nested under providerMetadata by an older schema", { providerMetadata: { marker: MARKER } }, MARKER],
    ["malformed", meta({ marker: "not-a-uuid" }), null],
    ["inherited, not recorded", Object.create({ marker: MARKER }), null],
    ["no metadata", null, null],
    ["a string", "marker", null],
  ])("%s", (_, metadata, expected) => {
    expect(recordedMarker(metadata)).toBe(expected);
  });
});
