/**
 * `node dist/scripted-llm.js [--port N] [--demo]`: the scripted LLM server with the demo model,
 * on 127.0.0.1, until SIGTERM or SIGINT. Prints one line with its URL when ready.
 */
import { demoModel } from "./demo-model";
import { startScriptedLlmServer } from "./scripted-llm-server";

function parsePort(argv: string[]): number {
  const i = argv.indexOf("--port");
  if (i < 0) return 0;
  const port = Number(argv[i + 1]);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`scripted-llm: --port needs a number from 0 to 65535, got "${argv[i + 1] ?? ""}"\n`);
    process.exit(2);
  }
  return port;
}

async function main(argv: string[]): Promise<void> {
  const unknown = argv.filter((a, i) => a !== "--demo" && a !== "--port" && argv[i - 1] !== "--port");
  if (unknown.length) {
    process.stderr.write(`scripted-llm: unknown argument "${unknown[0]}"\nUsage: scripted-llm [--port N] [--demo]\n`);
    process.exit(2);
  }
  // The demo model is the only script this entry point serves; --demo is accepted for clarity.
  const server = await startScriptedLlmServer({ port: parsePort(argv), script: demoModel });
  process.stdout.write(`scripted-llm listening on ${server.url}\n`);
  const stop = () => {
    void server.close().then(() => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`scripted-llm: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
