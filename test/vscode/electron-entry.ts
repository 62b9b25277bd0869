// Entry for @vscode/test-electron (extensionTestsPath): runs the same suite and throws on failure.
import { run as runSuite } from "./suite/index";

export async function run(): Promise<void> {
  const result = await runSuite();
  console.log(`yoke vscode suite: ${result.passed} passed, ${result.failed} failed`);
  if (result.failed > 0) throw new Error(`${result.failed} test(s) failed:\n${result.failures.join("\n\n")}`);
}
