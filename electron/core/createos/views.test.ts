import { describe, expect, it } from "vitest";
import { readSandboxView } from "./views";

describe("readSandboxView", () => {
  const id = "sb-01M6KG5TJBKXVMC552DM3ZV83A";

  it("keeps the name and creator CreateOS gives, for an untracked sandbox's detail", () => {
    expect(
      readSandboxView({
        id,
        status: "running",
        shape: "s-2vcpu-4gb",
        name: "debug-78fd",
        created_by: "user-1",
      }),
    ).toEqual({ id, status: "running", shape: "s-2vcpu-4gb", name: "debug-78fd", createdBy: "user-1" });
  });

  it("drops a name or creator of the wrong type instead of refusing the sandbox", () => {
    expect(readSandboxView({ id, status: "paused", name: 7, created_by: { id: "u" } })).toEqual({
      id,
      status: "paused",
    });
  });
});
