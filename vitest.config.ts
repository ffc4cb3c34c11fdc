import { defineConfig } from "vitest/config";

// Unit and integration tests run in plain Node. End-to-end specs under e2e/ belong to Playwright.
export default defineConfig({
  test: {
    include: ["{shared,electron,renderer,simulator,test,bench,scripts}/**/*.test.{ts,tsx}"],
    exclude: ["**/node_modules/**", "e2e/**"],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
  },
});
