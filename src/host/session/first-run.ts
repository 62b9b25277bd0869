// The first run: whether a provider is configured, and if not, the local model servers found (the
// panel's first-run view offers them). The probe starts the first time it is needed.
import type * as vscode from "vscode";
import type { FirstRunView } from "../../protocol/messages";
import { probeLocalServers } from "../local-servers";
import { needsKey, type ApiKeys, type HostSettings } from "../settings";

export class FirstRunProbe {
  private servers: FirstRunView["servers"] | undefined;
  private probing: Promise<void> | undefined;

  constructor(
    private readonly keys: ApiKeys,
    private readonly log: vscode.LogOutputChannel,
    /** A probe ended: the panel's state is posted again. */
    private readonly onFound: () => void,
  ) {}

  /**
   * Whether no provider is configured (the panel then shows its first-run view); starts looking
   * for local model servers the first time. The view itself is built with the snapshot.
   */
  async needsProvider(s: HostSettings): Promise<boolean> {
    const hasKey = async () => Boolean(await this.keys.get(s.provider));
    const configured = !s.explicit
      ? await hasKey()
      : s.provider === "openai-compatible"
        ? Boolean(s.baseUrl) // a local server needs no key, but it needs its URL
        : !needsKey(s) || (await hasKey());
    if (configured) return false;
    if (!this.probing) {
      const probing = probeLocalServers().then((servers) => {
        if (this.probing !== probing) return; // "Look again" started another one
        this.servers = servers;
        this.log.info(`local servers found: ${servers.map((x) => `${x.name} (${x.model})`).join(", ") || "none"}`);
        // A whole state, not a first-run message of its own: the provider may have been set meanwhile.
        this.onFound();
      });
      this.probing = probing;
    }
    return true;
  }

  /**
   * The first-run view as the probe is now, not as it was before the awaits that led here: a
   * probe that ended meanwhile must not be shown as still running.
   */
  view(needsProvider: boolean): FirstRunView | null {
    return needsProvider ? { servers: this.servers ?? [], probing: this.servers === undefined } : null;
  }

  /** Probes again the next time (`forgetFound`: "Look again", the servers found are dropped too). */
  again(forgetFound: boolean): void {
    if (forgetFound) this.servers = undefined;
    this.probing = undefined;
  }
}
