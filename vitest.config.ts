import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/unit/**/*.test.ts", "test/integration/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // The bundles are built once here; test files only run them (test/support/global-build.ts).
    globalSetup: ["test/support/global-build.ts"],
    // Two files at a time even on a 2-core machine (vitest's default there is one): most files
    // wait on processes they start (sandboxes, the CLI, git, servers), not on the processor.
    maxWorkers: 2,
  },
});
