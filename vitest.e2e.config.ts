import { defineConfig } from "vitest/config";

// End-to-end tests: a real VS Code (code-server) driven by Chromium. Slow, and each file starts
// its own code-server, so files run one at a time (CI has 2 cores).
export default defineConfig({
  test: {
    include: ["test/e2e/**/*.e2e.test.ts"],
    environment: "node",
    globalSetup: ["test/e2e/support/global-setup.ts"],
    testTimeout: 240_000,
    hookTimeout: 240_000,
    pool: "forks",
    fileParallelism: false,
    maxWorkers: 1,
    retry: 0,
    reporters: ["default"],
  },
});
