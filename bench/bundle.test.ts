import { describe, expect, it } from "vitest";
import { firstScreenScripts } from "./bundle.js";

describe("the scripts the first screen runs", () => {
  // The shape of vite's build manifest: the page's first script asks for the inventory, then loads the
  // app by a dynamic import; the app imports each view other than the lease table when it is opened.
  const manifest = {
    "index.html": {
      file: "assets/index-a.js",
      isEntry: true,
      imports: ["_contract-b.js"],
      dynamicImports: ["src/app/start-app.tsx"],
    },
    "_contract-b.js": { file: "assets/contract-b.js" },
    "src/app/start-app.tsx": {
      file: "assets/start-app-c.js",
      imports: ["_contract-b.js", "_react-d.js"],
      dynamicImports: ["src/views/janitor.tsx"],
    },
    "_react-d.js": { file: "assets/react-d.js" },
    "src/views/janitor.tsx": { file: "assets/janitor-e.js", imports: ["_chart-f.js"] },
    "_chart-f.js": { file: "assets/chart-f.js" },
  };

  it("are the entry, the app it loads at once and their static imports, each once", () => {
    expect(firstScreenScripts(manifest)).toEqual([
      "assets/index-a.js",
      "assets/contract-b.js",
      "assets/start-app-c.js",
      "assets/react-d.js",
    ]);
  });

  it("leave out a view the app loads when it is first opened", () => {
    expect(firstScreenScripts(manifest)).not.toContain("assets/janitor-e.js");
    expect(firstScreenScripts(manifest)).not.toContain("assets/chart-f.js");
  });

  it("refuse a manifest whose imports name a chunk it does not hold", () => {
    const broken = { "index.html": { file: "assets/index-a.js", isEntry: true, imports: ["_gone.js"] } };
    expect(() => firstScreenScripts(broken)).toThrow("names _gone.js");
  });
});
