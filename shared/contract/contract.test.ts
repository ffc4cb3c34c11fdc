import { describe, expect, it } from "vitest";
import { contract, EVENT_CHANNELS, events, INVOKE_CHANNELS, READ_CHANNELS } from "./index.js";

describe("contract", () => {
  it("names the same channels in the schema map and in the dependency-free list the preload uses", () => {
    expect(Object.keys(contract).sort()).toEqual([...INVOKE_CHANNELS].sort());
    expect(Object.keys(events).sort()).toEqual([...EVENT_CHANNELS].sort());
  });

  it("lists only real channels as read channels", () => {
    for (const channel of READ_CHANNELS) expect(INVOKE_CHANNELS).toContain(channel);
  });

  it.each(INVOKE_CHANNELS)("%s rejects a non-object request", (channel) => {
    expect(contract[channel].request.safeParse("not an object").success).toBe(false);
    expect(contract[channel].request.safeParse([1, 2, 3]).success).toBe(false);
  });

  it("refuses a credential origin that breaks the plugin's URL rule, and normalizes a good one", () => {
    const request = contract["credentials:set"].request;
    expect(request.safeParse({ name: "a", origin: "http://evil.example", apiKey: "12345678" }).success).toBe(
      false,
    );
    expect(
      request.safeParse({ name: "a", origin: "https://u:p@h.example", apiKey: "12345678" }).success,
    ).toBe(false);
    const parsed = request.parse({ name: "a", origin: "https://api.example/v1", apiKey: "12345678" });
    expect(parsed.origin).toBe("https://api.example");
  });

  it("rejects unknown request fields rather than ignoring them", () => {
    expect(contract["jobs:get"].request.safeParse({ jobId: "j1", extra: 1 }).success).toBe(false);
  });
});
