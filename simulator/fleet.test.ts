import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FleetError, parseFleet } from "./fleet.js";
import { startSimulator } from "./simulator.js";

const good = () => ({
  region: "eu",
  accounts: [
    {
      apiKey: "k1",
      sandboxes: [
        { id: "sb-1", status: "running", shape: "s-1vcpu-1gb", files: { "/a": "x" } },
        { id: "sb-2", status: "paused", shape: "s-2vcpu-4gb" },
      ],
    },
  ],
});

function problem(mutate: (fleet: ReturnType<typeof good>) => unknown): string {
  const fleet = good();
  const input = mutate(fleet) ?? fleet;
  try {
    parseFleet(input, "fleet.json");
  } catch (error) {
    expect(error).toBeInstanceOf(FleetError);
    return (error as Error).message;
  }
  throw new Error("the fleet was accepted");
}

describe("fleet validation", () => {
  it("accepts a well-formed fleet and fills defaults", () => {
    const fleet = parseFleet({ accounts: [{ apiKey: "k" }] });
    expect(fleet).toEqual({ region: "eu", accounts: [{ apiKey: "k", sandboxes: [] }] });
  });

  it.each([
    [
      "an unknown status",
      (f: ReturnType<typeof good>) => {
        (f.accounts[0]?.sandboxes[1] as { status: string }).status = "asleep";
      },
      /^fleet\.json: accounts\[0\]\.sandboxes\[1\]\.status: expected one of creating\|running\|pausing\|paused\|resuming\|forking\|error\|destroying\|destroyed\|failed$/,
    ],
    [
      "an unknown shape",
      (f: ReturnType<typeof good>) => {
        (f.accounts[0]?.sandboxes[0] as { shape: string }).shape = "s-64vcpu-1tb";
      },
      /^fleet\.json: accounts\[0\]\.sandboxes\[0\]\.shape: unknown shape: s-64vcpu-1tb$/,
    ],
    [
      "an id Paperclip would refuse",
      (f: ReturnType<typeof good>) => {
        (f.accounts[0]?.sandboxes[0] as { id: string }).id = "sb/1";
      },
      /accounts\[0\]\.sandboxes\[0\]\.id: expected an id matching/,
    ],
    [
      "a relative file path",
      (f: ReturnType<typeof good>) => {
        (f.accounts[0]?.sandboxes[0] as { files: Record<string, string> }).files = { "rel/path": "x" };
      },
      /accounts\[0\]\.sandboxes\[0\]\.files\["rel\/path"\]: path must be absolute/,
    ],
    [
      "a misspelt field",
      (f: ReturnType<typeof good>) => {
        (f.accounts[0]?.sandboxes[0] as Record<string, unknown>).satus = "running";
      },
      /accounts\[0\]\.sandboxes\[0\]: Unrecognized key: "satus"/,
    ],
    [
      "a sandbox id used by two accounts",
      (f: ReturnType<typeof good>) => {
        f.accounts.push({
          apiKey: "k2",
          sandboxes: [{ id: "sb-2", status: "running", shape: "s-1vcpu-1gb" }],
        });
      },
      /accounts\[1\]\.sandboxes\[0\]\.id: duplicate sandbox id sb-2 \(first at accounts\[0\]\.sandboxes\[1\]\)/,
    ],
    [
      "an API key used twice",
      (f: ReturnType<typeof good>) => {
        f.accounts.push({ apiKey: "k1", sandboxes: [] });
      },
      /accounts\[1\]\.apiKey: the same API key as accounts\[0\]/,
    ],
    ["no accounts list", () => ({ region: "eu" }), /^fleet\.json: accounts: /],
    ["not an object", () => [1, 2], /^fleet\.json: \(root\): /],
  ])("refuses %s, naming the field", (_, mutate, expected) => {
    expect(problem(mutate)).toMatch(expected);
  });

  it("says how many more problems there are", () => {
    const message = problem((f) => {
      for (const sandbox of f.accounts[0]?.sandboxes ?? []) (sandbox as { status: string }).status = "x";
    });
    expect(message).toMatch(/\(and 1 more\)$/);
  });

  it("refuses a malformed fleet file at start, naming the file and the field", async () => {
    const dir = await mkdtemp(join(tmpdir(), "fleet-"));
    const path = join(dir, "fleet.json");
    const fleet = good();
    (fleet.accounts[0]?.sandboxes[1] as { status: string }).status = "zombie";
    await writeFile(path, JSON.stringify(fleet));
    await expect(startSimulator({ fleetFile: path })).rejects.toThrow(
      `${path}: accounts[0].sandboxes[1].status: expected one of`,
    );
    await writeFile(path, "{ not json");
    await expect(startSimulator({ fleetFile: path })).rejects.toThrow(`${path}: not valid JSON`);
    await expect(startSimulator({ fleetFile: join(dir, "missing.json") })).rejects.toThrow(/file not found/);
  });
});
