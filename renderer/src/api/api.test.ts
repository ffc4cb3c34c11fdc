import { describe, expect, it, vi } from "vitest";
import type { LeasekeeperBridge } from "../../../shared/contract/bridge";
import { ApiError } from "./api-error";
import { electronTransport } from "./electron-transport";
import { createApi } from "./index";
import { TOKEN_STORAGE_KEY, takeToken } from "./token";
import type { Transport } from "./transport";

describe("the token in the URL", () => {
  function environment(href: string) {
    const url = new URL(href);
    const storage = new Map<string, string>();
    const replaced: string[] = [];
    return {
      env: {
        location: { hash: url.hash, search: url.search, pathname: url.pathname, href },
        history: {
          replaceState: (_data: unknown, _unused: string, next?: string) => replaced.push(next ?? ""),
        },
        sessionStorage: {
          getItem: (key: string) => storage.get(key) ?? null,
          setItem: (key: string, value: string) => storage.set(key, value),
        },
      },
      storage,
      replaced,
    };
  }

  it("moves from the fragment into sessionStorage and is stripped from the address bar", () => {
    const { env, storage, replaced } = environment("http://127.0.0.1:5000/#token=abc_DEF-123");
    expect(takeToken(env)).toBe("abc_DEF-123");
    expect(storage.get(TOKEN_STORAGE_KEY)).toBe("abc_DEF-123");
    expect(replaced).toEqual(["/"]);
  });

  it("also accepts ?token= and keeps other query parameters", () => {
    const { env, replaced } = environment("http://127.0.0.1:5000/?view=audit&token=t1");
    expect(takeToken(env)).toBe("t1");
    expect(replaced).toEqual(["/?view=audit"]);
  });

  it("leaves the rest of the fragment (the view a link opens) in place", () => {
    const { env, replaced } = environment("http://127.0.0.1:5000/#token=t2&view=audit&q=sbx-1");
    expect(takeToken(env)).toBe("t2");
    expect(replaced).toEqual(["/#view=audit&q=sbx-1"]);
  });

  it("after a reload, comes from sessionStorage", () => {
    const { env, storage, replaced } = environment("http://127.0.0.1:5000/");
    storage.set(TOKEN_STORAGE_KEY, "kept");
    expect(takeToken(env)).toBe("kept");
    expect(replaced).toEqual([]);
  });
});

describe("createApi", () => {
  it("passes an empty request when none is given, and subscribes through the transport", async () => {
    const invoke = vi.fn(async () => ({ ok: true as const, data: { mode: "browser" } }));
    const on = vi.fn(() => () => undefined);
    const transport: Transport = { mode: "browser", invoke, on };
    const api = createApi(transport);
    await expect(api.invoke("app:info")).resolves.toEqual({ mode: "browser" });
    expect(invoke).toHaveBeenCalledWith("app:info", {});
    const listener = vi.fn();
    api.on("jobs:event", listener);
    expect(on).toHaveBeenCalledWith("jobs:event", listener);
  });
});

describe("api over Electron's preload bridge", () => {
  it("calls window.leasekeeper and unwraps the same way", async () => {
    const invoke = vi.fn(async () => ({
      ok: false as const,
      error: { code: "not-found" as const, message: "No job." },
    }));
    const bridge = {
      invoke,
      on: vi.fn(() => () => undefined),
      channels: [],
      events: [],
    } as unknown as LeasekeeperBridge;
    const api = createApi(electronTransport(bridge));
    expect(api.mode).toBe("electron");
    await expect(api.invoke("jobs:get", { jobId: "j" })).rejects.toEqual(
      new ApiError("not-found", "No job."),
    );
    expect(invoke).toHaveBeenCalledWith("jobs:get", { jobId: "j" });
  });
});
