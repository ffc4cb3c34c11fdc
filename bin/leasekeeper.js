#!/usr/bin/env node
// The `leasekeeper` bin: the CLI compiled to JavaScript (dist-cli/cli.js, written by `npm run build:cli`
// and committed), run by plain Node in this very process, so the caller's arguments, stdio, signals and
// exit code are the CLI's own. Nothing here needs a dev dependency: `npm ci --omit=dev` then
// `npx leasekeeper scan --config FILE` works (decision 202). `npm run leasekeeper -- …` runs the
// TypeScript sources instead, through tsx.
await import("../dist-cli/cli.js");
