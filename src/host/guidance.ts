// Guidance in the panel: what the session has in force and why, pin/mute per workspace, and the
// "Yoke: Add to Project Memory" command (appends to AGENTS.md through the workspace fs).
import * as vscode from "vscode";
import type { SessionEvent } from "../core/events";
import type { GuidancePrefs } from "../core/guidance/types";
import type { GuidanceItemView, HostToWebview, WebviewToHost } from "../protocol/messages";
import { createVscodeWorkspaceFs } from "./workspace-fs";
import { notify } from "./shown";

const PREFS_KEY = "yoke.guidance.prefs";

type Action = Extract<WebviewToHost, { type: "guidanceAction" }>["action"];

export class GuidanceControls {
  private events: readonly SessionEvent[] = [];
  private lastJson = "";
  private readonly shown: Array<() => void> = [];

  constructor(
    private readonly state: vscode.Memento,
    private readonly post: (msg: HostToWebview) => void,
  ) {}

  /** Pinned and muted entries of this workspace (read by each session before every request). */
  prefs(): GuidancePrefs {
    const p = this.state.get<GuidancePrefs>(PREFS_KEY);
    return { pinned: Array.isArray(p?.pinned) ? p.pinned : [], muted: Array.isArray(p?.muted) ? p.muted : [] };
  }

  /** The session shown changed or logged guidance: post the list. */
  show(events: readonly SessionEvent[], force = false): void {
    this.events = events;
    this.push(force);
    for (const f of this.shown) f();
  }

  /** Calls `f` whenever the shown session changes or logs guidance (the Customizations view follows). */
  onShow(f: () => void): void {
    this.shown.push(f);
  }

  async action(id: string, action: Action): Promise<void> {
    const p = this.prefs();
    const pinned = new Set(p.pinned);
    const muted = new Set(p.muted);
    if (action === "pin") {
      pinned.add(id);
      muted.delete(id);
    } else if (action === "unpin") pinned.delete(id);
    else if (action === "mute") {
      muted.add(id);
      pinned.delete(id);
    } else muted.delete(id);
    await this.state.update(PREFS_KEY, { pinned: [...pinned], muted: [...muted] });
    this.push(true);
  }

  items(): { items: GuidanceItemView[]; problems: string[] } {
    const prefs = this.prefs();
    const byId = new Map<string, GuidanceItemView>();
    const problems: string[] = [];
    for (const e of this.events) {
      if (e.type !== "guidance") continue;
      for (const p of e.problems ?? []) problems.push(`${p.path}${p.line ? `:${p.line}` : ""}: ${p.message}`);
      for (const i of e.injected) {
        const prev = byId.get(i.id);
        if (prev?.state === "active") continue;
        byId.set(i.id, { id: i.id, name: i.name, kind: i.kind, source: i.source, reasons: i.reasons, state: i.listed ? "listed" : "active", pinned: false, muted: false });
      }
    }
    for (const id of [...prefs.pinned, ...prefs.muted]) {
      if (!byId.has(id)) {
        const [kind, ...rest] = id.split(":");
        const source = rest.join(":");
        byId.set(id, {
          id,
          name: source.split("/").pop() ?? source,
          kind: (["lesson", "skill", "rule", "memory"].includes(kind!) ? kind : "lesson") as GuidanceItemView["kind"],
          source,
          reasons: [],
          state: "inactive",
          pinned: false,
          muted: false,
        });
      }
    }
    const items = [...byId.values()].map((i) => ({ ...i, pinned: prefs.pinned.includes(i.id), muted: prefs.muted.includes(i.id) }));
    return { items, problems };
  }

  private push(force: boolean): void {
    const { items, problems } = this.items();
    const json = JSON.stringify({ items, problems });
    if (!force && json === this.lastJson) return;
    this.lastJson = json;
    this.post({ type: "guidance", items, problems });
  }
}

/** "Yoke: Add to Project Memory": the editor's selection, or what the user types, appended to AGENTS.md at the workspace root. */
export async function addToProjectMemory(): Promise<void> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const folder = folders[0];
  if (!folder) {
    void notify("error", "Open a folder first: project memory is the AGENTS.md of a workspace folder.");
    return;
  }
  const editor = vscode.window.activeTextEditor;
  const selected = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection) : "";
  const text =
    selected.trim() || (await vscode.window.showInputBox({ title: "Add to Project Memory (AGENTS.md)", prompt: "What should Yoke remember about this project?", ignoreFocusOut: true }))?.trim();
  if (!text) return;
  const fs = createVscodeWorkspaceFs(folder.uri, folders);
  const path = `${fs.root}/AGENTS.md`;
  const st = await fs.stat(path);
  if (st && st.type !== "file") {
    void notify("error", `${path} is not a file: nothing was written.`);
    return;
  }
  const before = st ? new TextDecoder().decode(await fs.readFile(path)) : "";
  const sep = before === "" ? "" : before.endsWith("\n\n") ? "" : before.endsWith("\n") ? "\n" : "\n\n";
  await fs.writeFile(path, new TextEncoder().encode(`${before}${sep}${text}\n`));
  void notify("info", "Added to AGENTS.md: new sessions start with it.");
}
