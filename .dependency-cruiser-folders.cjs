// The second pass of `npm run deps:check`: no circle between folders (docs/decisions/203-dependency-rules.md).
// dependency-cruiser draws the folder graph from every module it reads, so this pass leaves out the
// tests and their helpers, which build whole worlds from any layer and are imported by nothing that
// ships; the first pass (.dependency-cruiser.cjs) still holds them to no circle between files.
const main = require("./.dependency-cruiser.cjs");

const TESTS = main.forbidden.find((rule) => rule.name === "leaves-stay-leaves").from.pathNot;

/** The folders a reader sees in the tree, with everything below each: no two may import each other. */
const FOLDERS = [
  "electron/core/[^/]+",
  "electron/(shell|test-support)",
  "renderer/src/features/[^/]+",
  "renderer/src/(api|app|components|lib|state)",
  "shared/(contract|domain)",
  "simulator/[^/]+",
].join("|");

module.exports = {
  forbidden: [
    {
      name: "no-circular-folders",
      comment: "No circle between folders: the graph of which folder imports which has no cycle.",
      severity: "error",
      scope: "folder",
      from: { path: `^(${FOLDERS})` },
      to: { path: `^(${FOLDERS})`, circular: true },
    },
  ],
  options: {
    ...main.options,
    exclude: { path: [main.options.exclude.path, ...TESTS] },
  },
};
