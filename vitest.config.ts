import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/unit/**/*.test.ts", "test/integration/**/*.test.ts"],
    environment: "node",
    // Generous: CI runs two files at a time on a loaded machine, and a CPU-bound test that takes 10 s
    // quietly took 50 s there. A limit is a hang detector, never a speed assertion (those are in the bench).
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // The bundles are built once here; test files only run them (test/support/global-build.ts).
    globalSetup: ["test/support/global-build.ts"],
    // Two files at a time even on a 2-core machine (vitest's default there is one): most files
    // wait on processes they start (sandboxes, the CLI, git, servers), not on the processor.
    maxWorkers: 2,
  },
});
