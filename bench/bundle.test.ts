import { describe, expect, it } from "vitest";
import { scriptsNamedBy } from "./bundle.js";

describe("the scripts a built page names", () => {
  it("reads the module entry and its preloads, and nothing else", () => {
    const html = `<!doctype html><html><head>
    <link rel="icon" type="image/png" href="./favicon.png" />
    <script type="module" crossorigin src="./assets/index-CBg9xErr.js"></script>
    <link rel="modulepreload" crossorigin href="./assets/contract-lOodJqt1.js">
    <link rel="stylesheet" crossorigin href="./assets/index-DWTikBd5.css">
    </head><body><div id="root"></div></body></html>`;
    expect(scriptsNamedBy(html)).toEqual(["assets/index-CBg9xErr.js", "assets/contract-lOodJqt1.js"]);
  });
});
