// Which folder may use which (docs/decisions/203-dependency-rules.md, the README's "Layout").
// `npm run deps:check` runs it over electron/, shared/, renderer/ and simulator/, and CI fails
// on any rule below. Type-only imports count: a circle drawn by types is still a circle a reader follows.

/** Tests and their helpers build whole worlds from any layer; nothing ships or imports them. */
const TESTS = [
  "\\.test\\.tsx?$",
  "(^|/)testing/",
  "(^|/)test-support/",
  "^renderer/src/test/",
  "^simulator/test/",
  // builds a demo world and judges it by the console's own rules, for the demo's tests
  "^simulator/demo/judged\\.ts$",
];

const CORE = "^electron/core/";
/** Sources, the provider client and leaf modules: the bottom of electron/core. */
const LEAVES = "^electron/core/(leases|createos|config|vault|errors|redaction|postgres)/";
/** Everything that uses the leaves: adapters, the engine and the scan, features, surfaces, the root. */
const ABOVE_LEAVES =
  "^electron/core/(store|actions|inventory|app|quarantine|repair|markers|janitor|metrics|handlers|http-host|cli|compose)/";

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No two files import each other, directly or through others (type imports included).",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "shared-is-agreed-on-by-both",
      comment: "shared/ is what both sides agree on: it imports nothing from either side, nor the simulator.",
      severity: "error",
      from: { path: "^shared/" },
      to: { path: "^(electron|renderer|simulator)/" },
    },
    {
      name: "renderer-is-a-browser-app",
      comment:
        "The renderer talks to main only through the contract: no electron/, simulator/ or Node built-ins.",
      severity: "error",
      from: { path: "^renderer/" },
      to: { path: "^(electron|simulator)/|^node:" },
    },
    {
      name: "renderer-no-node-builtins",
      comment: "The renderer runs in a sandboxed page: no Node built-in modules.",
      severity: "error",
      from: { path: "^renderer/" },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "core-is-plain-node",
      comment: "electron/core/ runs in plain Node (CLI, browser host, tests): it never imports electron.",
      severity: "error",
      from: { path: CORE },
      to: { path: "(^|/)node_modules/electron/" },
    },
    {
      name: "simulator-stands-alone",
      comment:
        "The simulator stands in for CreateOS and Paperclip: it depends on nothing else in the project.",
      severity: "error",
      from: { path: "^simulator/", pathNot: TESTS },
      to: { path: "^(electron|renderer|shared|test|e2e|scripts|bench)/" },
    },
    {
      name: "leaves-stay-leaves",
      comment:
        "Sources, the provider client, config, vault, errors and redaction are the bottom layer: they import no adapter, engine, feature, surface or the root.",
      severity: "error",
      from: { path: LEAVES, pathNot: TESTS },
      to: { path: ABOVE_LEAVES },
    },
    {
      name: "leaves-import-no-surface-helpers",
      comment: "A leaf module does not reach into the loose files beside the layers.",
      severity: "error",
      from: { path: LEAVES, pathNot: TESTS },
      to: { path: "^electron/(main|preload|serve|cli)\\.ts$|^electron/shell/" },
    },
    {
      name: "core-below-hosts",
      comment: "The core never imports a host (electron/main.ts, preload.ts, serve.ts, cli.ts, shell/).",
      severity: "error",
      from: { path: CORE, pathNot: TESTS },
      to: { path: "^electron/[^/]+\\.ts$|^electron/shell/" },
    },
    {
      name: "engine-and-scan-declare-ports",
      comment:
        "actions/ and inventory/ declare the ports they need and import no store: the store implements them, compose/ joins the two.",
      severity: "error",
      from: {
        path: "^electron/core/(actions|inventory)/",
        // The inventory thread's entry is that thread's composition point (a connection cannot cross
        // threads): it opens the thread's stores and hands them to the keeper through its ports.
        pathNot: [...TESTS, "^electron/core/inventory/worker/inventory-worker\\.ts$"],
      },
      to: { path: "^electron/core/store/" },
    },
    {
      name: "store-below-features",
      comment:
        "The store implements ports: it may import what the engine and the scan declare, never a feature, a surface or the root.",
      severity: "error",
      from: { path: "^electron/core/store/", pathNot: TESTS },
      to: {
        path: "^electron/core/(app|quarantine|repair|markers|janitor|metrics|handlers|http-host|cli|compose)/",
      },
    },
    {
      name: "engine-below-features",
      comment: "The engine and the scan are used by features and surfaces, never the other way round.",
      severity: "error",
      from: { path: "^electron/core/(actions|inventory)/", pathNot: TESTS },
      to: {
        path: "^electron/core/(app|quarantine|repair|markers|janitor|metrics|handlers|http-host|cli|compose)/",
      },
    },
    {
      name: "features-below-surfaces",
      comment: "Features are called by the surfaces and the root; they import neither.",
      severity: "error",
      from: {
        path: "^electron/core/(app|quarantine|repair|markers|janitor|metrics|handlers)/",
        pathNot: TESTS,
      },
      to: { path: "^electron/core/(http-host|cli|compose)/" },
    },
    {
      name: "the-root-builds-no-surface",
      comment:
        "compose/ builds the core once; the hosts' surfaces (the CLI, the browser host) call it and add their transport, never the other way round.",
      severity: "error",
      from: { path: "^electron/core/compose/", pathNot: TESTS },
      to: { path: "^electron/core/(http-host|cli)/" },
    },
    {
      name: "renderer-features-below-the-shell",
      comment:
        "renderer/src/app/ composes the features; a feature, the state and the libraries never import it.",
      severity: "error",
      from: { path: "^renderer/src/(features|state|api|lib|components)/" },
      to: { path: "^renderer/src/app/" },
    },
    {
      name: "renderer-state-below-features",
      comment: "renderer/src/state/ serves the features their state; it imports none of them.",
      severity: "error",
      from: { path: "^renderer/src/(state|api|lib|components)/" },
      to: { path: "^renderer/src/features/" },
    },
  ],
  options: {
    doNotFollow: { path: "(^|/)node_modules/" },
    exclude: { path: "(^|/)(node_modules|dist|dist-cli|dist-electron)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".json"],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
