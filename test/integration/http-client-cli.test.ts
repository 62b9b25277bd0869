// The built CLI's HTTP client (src/node/http-client): which one a `yoke run` uses, and HTTPS with
// a self-signed server, refused unless NODE_EXTRA_CA_CERTS names its certificate — with Yoke's
// client as with Node's fetch. Also: undici is not loaded before the first request (the reason
// for the client: docs/benchmarks.md, "HTTP client").
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";
import { selfSignedCert, startFront } from "../support/http-front";

beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
const temp = (p: string) => {
  const d = mkdtempSync(join(tmpdir(), p));
  temps.push(d);
  return d;
};
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

const NO_PROXY_ENV = {
  HTTPS_PROXY: undefined,
  https_proxy: undefined,
  HTTP_PROXY: undefined,
  http_proxy: undefined,
  ALL_PROXY: undefined,
  all_proxy: undefined,
  NO_PROXY: undefined,
  no_proxy: undefined,
};

function yokeRun(baseUrl: string, env: Record<string, string | undefined>) {
  const work = temp("yoke-http-work-");
  return runCli(["run", "--trust", "--provider", "anthropic", "--base-url", baseUrl, "--cwd", work, "--session-dir", join(work, ".s"), "--max-turns", "1", "hello"], {
    env: { HOME: temp("yoke-http-home-"), ANTHROPIC_API_KEY: "test-key", YOKE_HTTP_CLIENT: undefined, ...NO_PROXY_ENV, ...env },
  });
}

describe("the CLI's HTTP client", () => {
  it("is Yoke's own by default, Node's fetch with a proxy variable or YOKE_HTTP_CLIENT=fetch; a bad choice is a usage error", async () => {
    const server = await startScriptedLlmServer({ script: () => ({ text: "Answered." }) });
    try {
      // Node's fetch sends `sec-fetch-mode: cors`; Yoke's client does not.
      const cases: Array<[Record<string, string>, boolean]> = [
        [{}, false],
        [{ NO_PROXY: "localhost" }, true],
        [{ https_proxy: "http://127.0.0.1:9" }, true],
        [{ YOKE_HTTP_CLIENT: "fetch" }, true],
        [{ YOKE_HTTP_CLIENT: "node", HTTP_PROXY: "http://127.0.0.1:9" }, false],
      ];
      for (const [env, undici] of cases) {
        const before = server.requests.length;
        const r = await yokeRun(server.anthropicBaseUrl, env);
        expect(r.stdout, JSON.stringify(env) + r.stderr).toContain("Answered.");
        expect(server.requests.length).toBe(before + 1);
        expect(server.requests.at(-1)!.headers["sec-fetch-mode"], JSON.stringify(env)).toBe(undici ? "cors" : undefined);
      }
      const bad = await yokeRun(server.anthropicBaseUrl, { YOKE_HTTP_CLIENT: "curl" });
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toContain('YOKE_HTTP_CLIENT="curl" is not a choice');
    } finally {
      await server.close();
    }
  }, 180_000);

  it("loads no undici before the first request with Yoke's client (Node's fetch does), neither TLS nor zlib for an http: server, nor node:fs/promises, readline and web streams", async () => {
    const server = await startScriptedLlmServer({ script: () => ({ text: "Answered." }) });
    try {
      const dir = temp("yoke-http-probe-");
      // Records, at the first connection the process opens, which of Node's undici, TLS, zlib, fs/promises, readline and web streams were loaded.
      const probe = join(dir, "probe.cjs");
      writeFileSync(
        probe,
        `const net = require("node:net"); const fs = require("node:fs"); const orig = net.Socket.prototype.connect; let done = false;
const has = (re) => process.moduleLoadList.some((m) => re.test(m));
net.Socket.prototype.connect = function (...a) { if (!done) { done = true; fs.writeFileSync(process.env.PROBE_OUT, JSON.stringify({ undici: has(/undici/), tls: has(/^NativeModule (tls|_tls_wrap|https)$/), zlib: has(/^NativeModule zlib$/), fsPromises: has(/^NativeModule (internal\\/)?fs\\/promises$/), readline: has(/^NativeModule (internal\\/)?readline\\//), webStreams: has(/^NativeModule internal\\/webstreams\\/readablestream$/) })); } return orig.apply(this, a); };`,
      );
      const out = (client: string) => join(dir, `${client}.json`);
      const node = await yokeRun(server.anthropicBaseUrl, { YOKE_HTTP_CLIENT: "node", NODE_OPTIONS: `--require ${probe}`, PROBE_OUT: out("node") });
      expect(node.stdout, node.stderr).toContain("Answered.");
      // The server is http: (as a local model's is) and the request carries no compressed body:
      // src/node/http-client/node-fetch.ts loads https and zlib only when a request needs them;
      // node:fs/promises and node:readline/promises load on their first use (esbuild.mjs
      // lazyPackagesPlugin), and a session's reads before it use node:fs's callbacks (src/node/node-fs.ts);
      // the SDK asks whether the body is a ReadableStream without making the class (sdk-globals.ts).
      expect(JSON.parse(readFileSync(out("node"), "utf8"))).toEqual({ undici: false, tls: false, zlib: false, fsPromises: false, readline: false, webStreams: false });
      const fetch = await yokeRun(server.anthropicBaseUrl, { YOKE_HTTP_CLIENT: "fetch", NODE_OPTIONS: `--require ${probe}`, PROBE_OUT: out("fetch") });
      expect(fetch.stdout, fetch.stderr).toContain("Answered.");
      expect(JSON.parse(readFileSync(out("fetch"), "utf8")).undici).toBe(true);
    } finally {
      await server.close();
    }
  }, 180_000);

  it("refuses a self-signed HTTPS server unless NODE_EXTRA_CA_CERTS names its certificate, as Node's fetch does", async () => {
    const tls = selfSignedCert();
    const server = await startScriptedLlmServer({ script: () => ({ text: "Over TLS." }) });
    const front = await startFront(server.url, "plain", { tls });
    try {
      for (const client of ["node", "fetch"]) {
        const before = server.requests.length;
        const refused = await yokeRun(front.url, { YOKE_HTTP_CLIENT: client, NODE_EXTRA_CA_CERTS: undefined });
        expect(refused.stdout, client).not.toContain("Over TLS.");
        expect(server.requests.length, client).toBe(before);
        const trusted = await yokeRun(front.url, { YOKE_HTTP_CLIENT: client, NODE_EXTRA_CA_CERTS: tls.certPath });
        expect(trusted.stdout, client + trusted.stderr).toContain("Over TLS.");
        expect(server.requests.length, client).toBe(before + 1);
      }
    } finally {
      await front.close();
      await server.close();
    }
  }, 240_000);
});
