import { describe, expect, it } from "vitest";
import type { SourceGap } from "../../../../shared/domain/paperclip.js";
import { keylessGaps } from "./keyless-gaps.js";

const KEY = "pcp_live_9f8e7d6c5b4a";

const gap: SourceGap = {
  source: `paperclip at https://paperclip.example/?token=${KEY}`,
  origin: "https://api.createos.example",
  message: `environment env-1: GET /api/leases answered 401 for bearer ${KEY}`,
  environmentId: "env-1",
};

describe("the parts not read, as the last look before a request words them", () => {
  it("cut every configured key out of the source's name and its words, and keep the rest", async () => {
    const [cut] = await keylessGaps([gap], async () => new Set([KEY, "short"]));
    expect(JSON.stringify(cut)).not.toContain(KEY);
    expect(cut).toEqual({
      source: "paperclip at https://paperclip.example/?token=[redacted]",
      origin: "https://api.createos.example",
      message: "environment env-1: GET /api/leases answered 401 for bearer [redacted]",
      environmentId: "env-1",
    });
  });

  it("say only that a part could not be read when the keys cannot be listed", async () => {
    const [cut] = await keylessGaps([gap], () => Promise.reject(new Error(`vault locked: ${KEY}`)));
    expect(cut?.message).toBe("a part could not be read");
    expect(cut?.environmentId).toBe("env-1");
    expect(cut?.origin).toBe(gap.origin);
  });

  it("leave the words as they are where no key is configured, and ask for none when nothing is unread", async () => {
    expect(await keylessGaps([gap], undefined)).toEqual([gap]);
    let asked = 0;
    expect(
      await keylessGaps([], async () => {
        asked += 1;
        return new Set([KEY]);
      }),
    ).toEqual([]);
    expect(asked).toBe(0);
  });
});
