import { describe, expect, it } from "vitest";
import { totalWords } from "./total-words";

describe("totalWords", () => {
  it("states a whole total as it is", () => {
    expect(totalWords(1234, true)).toEqual({ text: "1,234", title: "1,234 leases", unread: null });
  });

  it("says a total with a part not read is a lower bound, in its text and in words", () => {
    expect(totalWords(1234, false)).toEqual({
      text: "1,234+",
      title: "At least 1,234 leases: counted among the leases read, as a source could not read them all",
      unread: "at least; a source could not read every lease",
    });
  });
});
