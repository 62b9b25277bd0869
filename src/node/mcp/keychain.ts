/**
 * The CLI's MCP sign-ins in the system keychain where it has one: the freedesktop Secret Service
 * (GNOME Keyring, KWallet, KeePassXC — what VS Code's own secret storage uses on Linux), through
 * libsecret's `secret-tool`. The secret goes to `secret-tool store` on stdin, never in argv; lookups
 * come back on stdout. Where there is no Secret Service (no `secret-tool`, no D-Bus session — a
 * container, CI, an SSH shell), the 0600 file is kept, as before.
 *
 * Why a child process and not a library: the npm bindings to the keychains are native modules
 * (keytar is archived; its successors need a compiler or per-platform binaries), and `secret-tool`
 * is libsecret's own command line, installed with it on desktops. macOS and Windows use the file
 * for now (their keychain tools take the secret in argv, visible to `ps`).
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import { join } from "node:path";
import { FileCredentialStore, type McpCredentialStore } from "./oauth";

/** The Secret Service attributes Yoke's items carry: `service` names Yoke, `key` the server's URL (hashed: keychainKey). */
export const KEYCHAIN_SERVICE = "yoke-mcp-oauth";

/**
 * The item's `key` attribute for a credential key (the server's URL): its SHA-256. `secret-tool`
 * takes attributes in argv, which every user of the machine reads (/proc/PID/cmdline, `ps`), and a
 * server's URL may itself be a secret (a token in its path or query, as hosted servers hand out;
 * red team O, session 19). Equal URLs still find the same item.
 */
export function keychainKey(key: string): string {
  return `sha256:${createHash("sha256").update(key, "utf8").digest("hex")}`;
}

/** The item's label, shown in the keychain's window and in argv: the server's origin, never its path or query. */
function keychainLabel(key: string): string {
  try {
    const origin = new URL(key).origin;
    return `Yoke MCP sign-in: ${origin === "null" ? "an MCP server" : origin}`;
  } catch {
    return "Yoke MCP sign-in";
  }
}

interface ToolResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The program could not be started (not installed). */
  missing?: boolean;
}

function secretTool(args: string[], env: NodeJS.ProcessEnv, input: string | undefined, timeoutMs: number): Promise<ToolResult> {
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let done = false;
    const finish = (r: ToolResult): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(r);
    };
    const child = spawn("secret-tool", args, { env, stdio: ["pipe", "pipe", "pipe"] });
    // A keychain that asks to be unlocked waits for the person; past the limit it counts as absent.
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish({ code: null, stdout, stderr: `${stderr}secret-tool did not answer in ${Math.round(timeoutMs / 1000)} s` });
    }, timeoutMs);
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", (e: NodeJS.ErrnoException) => finish({ code: null, stdout, stderr: e.message, missing: e.code === "ENOENT" }));
    child.on("close", (code) => finish({ code, stdout, stderr }));
    child.stdin.on("error", () => undefined);
    child.stdin.end(input ?? "");
  });
}

/**
 * One item per server URL in the Secret Service. `get` reads the item; a sign-in made before the
 * keychain was used (in the file) is still found there, and moves to the keychain on its next write.
 */
export class SecretServiceCredentialStore implements McpCredentialStore {
  readonly where = "the system keychain (Secret Service)";
  constructor(
    private readonly legacy: FileCredentialStore,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly timeoutMs = 30_000,
  ) {}

  private attrs(key: string): string[] {
    return ["service", KEYCHAIN_SERVICE, "key", keychainKey(key)];
  }

  async get(key: string): Promise<string | undefined> {
    const r = await secretTool(["lookup", ...this.attrs(key)], this.env, undefined, this.timeoutMs);
    if (r.code === 0) return r.stdout;
    // Exit 1 with nothing on stderr: no such item. Anything else: the keychain failed this time.
    if (r.code === 1 && !r.stderr.trim()) return this.legacy.get(key);
    throw new Error(`could not read the MCP sign-in from the system keychain: ${oneLine(r.stderr)}`);
  }

  async set(key: string, value: string): Promise<void> {
    const r = await secretTool(["store", `--label=${keychainLabel(key)}`, ...this.attrs(key)], this.env, value, this.timeoutMs);
    if (r.code !== 0) throw new Error(`could not keep the MCP sign-in in the system keychain: ${oneLine(r.stderr)}`);
    await this.legacy.delete(key);
  }

  async delete(key: string): Promise<void> {
    const r = await secretTool(["clear", ...this.attrs(key)], this.env, undefined, this.timeoutMs);
    await this.legacy.delete(key);
    // `clear` of an item that is not there exits 0 or 1 with nothing said; a message is a failure.
    if (r.code !== 0 && r.stderr.trim()) throw new Error(`could not remove the MCP sign-in from the system keychain: ${oneLine(r.stderr)}`);
  }
}

function isSocket(path: string): boolean {
  try {
    return statSync(path).isSocket();
  } catch {
    return false;
  }
}

function oneLine(s: string): string {
  return s.trim().replace(/\s+/g, " ").slice(0, 300) || "no reason given";
}

/** `YOKE_MCP_CREDENTIALS`: `keychain` (only the keychain), `file` (only the file), unset: the keychain when one answers. */
export type CredentialChoice = "auto" | "keychain" | "file";

/**
 * The CLI's store, chosen at first use: the Secret Service when one answers a lookup (an item that is
 * not there answers exit 1 with nothing on stderr), else the file. `where` names the one in use.
 */
export class CliCredentialStore implements McpCredentialStore {
  private chosen: Promise<McpCredentialStore> | undefined;
  private current: McpCredentialStore;
  /** Why the keychain refused the last write (kept in the file instead), for `where`. */
  private refused: string | undefined;
  constructor(
    private readonly file: FileCredentialStore,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly platform: NodeJS.Platform = process.platform,
  ) {
    this.current = file;
  }

  get where(): string {
    return this.refused ? `${this.file.where} (the system keychain refused it: ${this.refused})` : this.current.where;
  }

  private choose(): Promise<McpCredentialStore> {
    this.chosen ??= (async () => {
      const choice = (this.env.YOKE_MCP_CREDENTIALS ?? "auto").trim().toLowerCase();
      if (choice === "file" || (choice !== "keychain" && !["linux", "freebsd", "openbsd"].includes(this.platform))) return this.file;
      // Only a session bus that exists: without one, libdbus may "autolaunch" a bus of its own
      // (with $DISPLAY set) that outlives Yoke. The systemd user bus is at $XDG_RUNTIME_DIR/bus.
      const userBus = this.env.XDG_RUNTIME_DIR ? join(this.env.XDG_RUNTIME_DIR, "bus") : undefined;
      const address = this.env.DBUS_SESSION_BUS_ADDRESS?.trim() || (userBus && isSocket(userBus) ? `unix:path=${userBus}` : undefined);
      if (!address && choice !== "keychain") return this.file;
      const busEnv = address ? { ...this.env, DBUS_SESSION_BUS_ADDRESS: address } : this.env;
      const keychain = new SecretServiceCredentialStore(this.file, busEnv);
      if (choice === "keychain") return keychain;
      // The probe asks the same bus the store will use.
      const probe = await secretTool(["lookup", "service", KEYCHAIN_SERVICE, "key", "yoke:probe"], busEnv, undefined, 5_000);
      return probe.code === 0 || (probe.code === 1 && !probe.stderr.trim()) ? keychain : this.file;
    })().then((s) => (this.current = s));
    return this.chosen;
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.choose()).get(key);
  }
  /**
   * A keychain that answers lookups but refuses to store (no default collection, a locked one
   * whose prompt was dismissed) does not lose the sign-in: it goes to the file, which later reads
   * find (`get` falls back to it), unless `YOKE_MCP_CREDENTIALS=keychain` asked for the keychain only.
   */
  async set(key: string, value: string): Promise<void> {
    const store = await this.choose();
    try {
      await store.set(key, value);
    } catch (err) {
      if (store === this.file || (this.env.YOKE_MCP_CREDENTIALS ?? "").trim().toLowerCase() === "keychain") throw err;
      await this.file.set(key, value);
      this.refused = err instanceof Error ? err.message : String(err);
    }
  }
  async delete(key: string): Promise<void> {
    return (await this.choose()).delete(key);
  }
}
