import { describe, expect, it } from "vitest";
import { MARKER_PATH as MARKER } from "../demo/ledger.js";
import { Workspace } from "../state/workspace.js";
import { run } from "./commands.js";
import { tokenize } from "./shell.js";

describe("exec programs", () => {
  it("cats files, and fails with exit 1 for a missing one while still printing the rest", () => {
    const ws = new Workspace({ [MARKER]: "uuid-here", "/etc/hostname": "box\n" });
    expect(run("/bin/cat", [MARKER], ws)).toEqual({ stdout: "uuid-here", stderr: "", exit_code: 0 });
    expect(run("cat", ["/etc/hostname", "/missing"], ws)).toEqual({
      stdout: "box\n",
      stderr: "cat: /missing: No such file or directory\n",
      exit_code: 1,
    });
  });

  it("makes directories with and without -p, honouring --", () => {
    const ws = new Workspace();
    expect(run("mkdir", ["/a/b"], ws).exit_code).toBe(1);
    expect(run("mkdir", ["-p", "--", "/a/b"], ws).exit_code).toBe(0);
    expect(ws.isDirectory("/a")).toBe(true);
    expect(run("mkdir", ["/a"], ws).stderr).toContain("File exists");
    expect(run("mkdir", ["-p", "/a"], ws).exit_code).toBe(0);
  });

  it("removes files, quietly with -f, and directories only with -r", () => {
    const ws = new Workspace({ "/w/x": "1", "/w/y/z": "2" });
    expect(run("rm", ["/w/nope"], ws).exit_code).toBe(1);
    expect(run("/bin/rm", ["-f", "/w/nope"], ws).exit_code).toBe(0);
    expect(run("rm", ["/w/y"], ws).stderr).toContain("Is a directory");
    expect(run("rm", ["-rf", "/w"], ws).exit_code).toBe(0);
    expect(ws.filePaths()).toEqual([]);
  });

  it("echoes, with -n dropping the newline", () => {
    expect(run("/bin/echo", ["a", "b"], new Workspace()).stdout).toBe("a b\n");
    expect(run("echo", ["-n", "a"], new Workspace()).stdout).toBe("a");
  });

  it("reports an unknown program as not started, not as a success", () => {
    const result = run("/usr/bin/python3", ["-V"], new Workspace());
    expect(result.exit_code).toBe(127);
    expect(result.error).toContain("executable file not found");
  });

  it("runs bash -lc scripts with &&, || and ;", () => {
    const ws = new Workspace();
    const script = 'mkdir -p -- /paperclip-workspace && echo "made it" ; cat /nope || echo fallback';
    expect(run("bash", ["-lc", script], ws)).toEqual({
      stdout: "made it\nfallback\n",
      stderr: "cat: /nope: No such file or directory\n",
      exit_code: 0,
    });
    expect(run("sh", ["-c", "false && echo never"], ws)).toEqual({ stdout: "", stderr: "", exit_code: 1 });
    expect(run("bash", ["-lc", "frobnicate"], ws).exit_code).toBe(127);
  });

  it("refuses shell syntax it does not model instead of half-running it", () => {
    for (const script of ["cat /a | wc -l", "echo x > /f", "echo $HOME", 'echo "$(id)"', "echo 'open"]) {
      const result = run("bash", ["-lc", script], new Workspace());
      expect(result.exit_code, script).toBe(2);
      expect(result.stderr, script).toContain("unsupported");
    }
  });

  it("tokenizes quotes and escapes like a shell", () => {
    expect(tokenize(`echo 'a b' "c \\"d\\"" e\\ f`)).toEqual([
      { word: "echo" },
      { word: "a b" },
      { word: 'c "d"' },
      { word: "e f" },
    ]);
    expect(tokenize("a&&b")).toEqual([{ word: "a" }, { operator: "&&" }, { word: "b" }]);
    expect(tokenize("''")).toEqual([{ word: "" }]);
  });
});
