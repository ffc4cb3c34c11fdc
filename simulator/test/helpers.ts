import type { SandboxStatus } from "../catalog.js";
import { MARKER_PATH } from "../demo/ledger.js";
import type { FleetInput, FleetSandbox } from "../fleet.js";
import { type Simulator, type SimulatorOptions, startSimulator } from "../simulator.js";

export const ALICE = "key-alice-0001";
export const BOB = "key-bob-0002";

export { MARKER_PATH } from "../demo/ledger.js";
export const MARKER = "7c9e6679-7425-40de-944b-e07fc1f90ae7";

export function sandbox(id: string, status: SandboxStatus, extra: Partial<FleetSandbox> = {}): FleetSandbox {
  return {
    id,
    status,
    shape: "s-1vcpu-1gb",
    rootfs: "devbox:1",
    created_at: "2026-11-01T10:00:00Z",
    ...extra,
  };
}

/** Alice has one sandbox in each interesting state; Bob has one of his own. */
export function smallFleet(): FleetInput {
  return {
    region: "eu",
    accounts: [
      {
        apiKey: ALICE,
        userId: "user-alice",
        sandboxes: [
          sandbox("sb-running", "running", { files: { [MARKER_PATH]: MARKER } }),
          sandbox("sb-paused", "paused"),
          sandbox("sb-error", "error"),
          sandbox("sb-destroyed", "destroyed", { destroyed_at: "2026-11-02T10:00:00Z" }),
          sandbox("sb-failed", "failed"),
        ],
      },
      { apiKey: BOB, userId: "user-bob", sandboxes: [sandbox("sb_bob", "running")] },
    ],
  };
}

/** Quick transitions and no rate limit unless a test asks for them. */
export function startTestSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  return startSimulator({ fleet: smallFleet(), transitionMs: 20, rateLimitPerMinute: 0, ...options });
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  body: any;
}

/** A raw request, for what the SDK would refuse to send or would paper over. */
export async function call(
  base: string,
  path: string,
  init: { key?: string; method?: string; body?: string | Uint8Array; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key) headers["x-api-key"] = init.key;
  const body = init.body as BodyInit | undefined;
  const response = await fetch(`${base}${path}`, { method: init.method ?? "GET", headers, body });
  const text = await response.text();
  const json = response.headers.get("content-type")?.includes("json");
  return { status: response.status, headers: response.headers, body: json ? JSON.parse(text) : text };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls until the sandbox reports `status`, or fails after `timeoutMs`. */
export async function waitForStatus(
  base: string,
  key: string,
  id: string,
  status: string,
  timeoutMs = 2_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await call(base, `/v1/sandboxes/${id}`, { key });
    if (body.data?.status === status) return body.data;
    if (Date.now() > deadline) throw new Error(`${id} stayed ${body.data?.status}, expected ${status}`);
    await sleep(10);
  }
}
