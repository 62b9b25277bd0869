// Vitest global setup for the e2e suite: makes sure code-server is installed and the .vsix is
// fresh. scripts/e2e.mjs has already done both and sets YOKE_VSIX; a direct
// `npx vitest run -c vitest.e2e.config.ts` packages here instead.
import { setupCodeServer } from "../../../scripts/lib/code-server.mjs";
import { packageVsix } from "../../../scripts/package.mjs";

export default async function setup(): Promise<void> {
  setupCodeServer();
  if (!process.env.YOKE_VSIX) {
    const { vsix } = await packageVsix({ log: (line) => process.stderr.write(`${line}\n`) });
    process.env.YOKE_VSIX = vsix;
  }
}
