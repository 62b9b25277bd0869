/**
 * A front server for HTTP-client tests: forwards every request to a scripted LLM server and does
 * one thing to it on the way — compresses the answer (gzip, br; flushed chunk by chunk so a stream
 * still streams), redirects first, resets the connection after the first chunk of the body, or
 * resets a kept-alive connection when a second request arrives on it. Over TLS when given a key
 * and certificate. Records which of its client connections closed.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import * as http from "node:http";
import * as https from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as zlib from "node:zlib";

export type FrontMode = "plain" | "gzip" | "br" | "redirect" | "redirect-away" | "reset-once" | "reset-reused";

export interface Front {
  url: string;
  /** Requests seen (redirects included). */
  count(): number;
  /** Responses whose connection closed before they ended (the client went away or was cut off). */
  cutShort(): number;
  /** Connections reset by the front itself. */
  resets(): number;
  close(): Promise<void>;
}

/** A self-signed certificate for 127.0.0.1 (openssl), in a new temporary folder. */
export function selfSignedCert(): { key: string; cert: string; certPath: string } {
  const dir = mkdtempSync(join(tmpdir(), "yoke-cert-"));
  const keyPath = join(dir, "key.pem");
  const certPath = join(dir, "cert.pem");
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", keyPath, "-out", certPath, "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], {
    stdio: "ignore",
  });
  return { key: readFileSync(keyPath, "utf8"), cert: readFileSync(certPath, "utf8"), certPath };
}

/** `target`: the scripted server's URL (http://127.0.0.1:PORT); `away`: where "redirect-away" sends the client. */
export async function startFront(target: string, mode: FrontMode, opts: { tls?: { key: string; cert: string }; away?: string } = {}): Promise<Front> {
  let count = 0;
  let cutShort = 0;
  let resets = 0;
  let resetDone = false;
  const served = new WeakSet<Socket>();
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    count++;
    res.on("close", () => {
      if (!res.writableFinished) cutShort++;
    });
    const socket = req.socket;
    if (mode === "reset-reused" && served.has(socket) && !resetDone) {
      resetDone = true;
      resets++;
      socket.resetAndDestroy();
      return;
    }
    served.add(socket);
    const path = req.url ?? "/";
    if ((mode === "redirect" && !path.startsWith("/moved")) || mode === "redirect-away") {
      req.resume();
      res.writeHead(307, { location: mode === "redirect" ? `/moved${path}` : new URL(path, opts.away).href });
      res.end();
      return;
    }
    const upstream = http.request(new URL(path.replace(/^\/moved/, ""), target), { method: req.method, headers: { ...req.headers, host: new URL(target).host } }, (up) => {
      const headers = { ...up.headers };
      if (mode === "gzip" || mode === "br") {
        delete headers["content-length"];
        headers["content-encoding"] = mode;
        res.writeHead(up.statusCode ?? 502, headers);
        const z = mode === "gzip" ? zlib.createGzip() : zlib.createBrotliCompress();
        z.pipe(res);
        up.on("data", (d: Buffer) => {
          z.write(d);
          z.flush();
        });
        up.on("end", () => z.end());
        return;
      }
      res.writeHead(up.statusCode ?? 502, headers);
      if (mode === "reset-once" && !resetDone) {
        resetDone = true;
        up.once("data", (d: Buffer) => {
          res.write(d, () => {
            resets++;
            socket.resetAndDestroy();
          });
        });
        return;
      }
      up.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  };
  const server = opts.tls ? https.createServer({ key: opts.tls.key, cert: opts.tls.cert }, handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${opts.tls ? "https" : "http"}://127.0.0.1:${port}`,
    count: () => count,
    cutShort: () => cutShort,
    resets: () => resets,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
