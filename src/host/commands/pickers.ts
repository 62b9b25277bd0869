// Quick picks of the palette: Open Session…, Switch Permission Mode, Switch Model.
import * as vscode from "vscode";
import type { PermissionMode } from "../../core/loop/types";
import type { SessionController } from "../session-controller";
import { ApiKeys, readSettings, vscodeSettings, writeSetting, type HostSettings } from "../settings";
import { modelChoices, type ModelChoice } from "./models";
import { listModels } from "../../core/providers/list-models";
import { notify, shownItem } from "../shown";

export async function openSessionPick(controller: SessionController, reveal: () => Promise<void>): Promise<void> {
  const sessions = controller.history(true);
  if (!sessions.length) {
    void notify("info", "Yoke: no sessions in this workspace yet.");
    return;
  }
  const pick = await vscode.window.showQuickPick(
    sessions.map((s) =>
      shownItem({
        label: s.title,
        description: `${s.status} · ${s.modelLabel}${s.active ? " · shown" : ""}`,
        detail: s.updatedAt ? new Date(s.updatedAt).toLocaleString() : undefined,
        id: s.id,
      }),
    ),
    { title: "Yoke: Open Session", placeHolder: "Sessions of this workspace, newest first", matchOnDescription: true },
  );
  if (!pick) return;
  await reveal();
  controller.openSession(pick.id);
}

export const MODE_PICKS = [
  { mode: "default", label: "Ask (default)", detail: "Ask before edits and commands unless a rule allows them." },
  { mode: "acceptEdits", label: "Accept edits", detail: "Apply file edits without asking; still ask before commands." },
  { mode: "plan", label: "Plan (read-only)", detail: "The agent investigates and plans; it changes nothing." },
  { mode: "bypassPermissions", label: "Bypass permissions", detail: "Never ask (deny rules still apply). Use only in a sandbox." },
] as const satisfies ReadonlyArray<{ mode: PermissionMode; label: string; detail: string }>;

export async function permissionModePick(controller: SessionController): Promise<void> {
  const current = await controller.currentMode();
  const pick = await vscode.window.showQuickPick(
    MODE_PICKS.map((m) => ({ ...m, description: m.mode === current ? "current" : m.mode })),
    { title: "Yoke: Switch Permission Mode", placeHolder: `Now: ${current}` },
  );
  if (pick) await controller.setMode(pick.mode);
}

/** The models the provider's server lists (src/core/providers/list-models.ts: the SDK's list, bounded and cached). Never throws. */
async function serverModels(s: HostSettings, keys: ApiKeys, log: vscode.LogOutputChannel): Promise<{ ids: string[]; problem?: string }> {
  const key = await keys.get(s.provider);
  // Anthropic's and OpenAI's lists need a key: without one there is nothing to ask.
  if ((s.provider === "anthropic" || s.provider === "openai") && !key) return { ids: [] };
  if (s.provider !== "anthropic" && s.provider !== "openai" && s.provider !== "openai-compatible") return { ids: [] };
  const listed = await listModels({ provider: s.provider, baseUrl: s.baseUrl || undefined, apiKey: key || undefined });
  if (listed.problem) log.info(`listing the models of ${s.provider} failed: ${listed.problem}`);
  return listed;
}

async function languageModels(): Promise<string[]> {
  try {
    return (await vscode.lm.selectChatModels({})).map((m) => m.id);
  } catch {
    return [];
  }
}

const OTHER = "$(edit) Enter a model name…";

export async function switchModelPick(keys: ApiKeys, log: vscode.LogOutputChannel): Promise<void> {
  const s = readSettings();
  const qp = vscode.window.createQuickPick<vscode.QuickPickItem & { choice?: ModelChoice }>();
  qp.title = `Yoke: Switch Model (${s.provider})`;
  qp.placeholder = `Now: ${s.model || "the provider's default"}. The next message uses the model you pick.`;
  qp.matchOnDescription = true;
  const render = (available: string[], problem?: string) => {
    const fallback = vscodeSettings().fallbackModels?.value ?? [];
    qp.items = [
      ...modelChoices({ provider: s.provider, current: s.model, fallbackModels: fallback, available }).map((choice) => ({
        label: choice.model,
        description: choice.sources.join(" · "),
        choice,
      })),
      { label: OTHER, ...(problem ? { detail: `Not listed: ${problem}.` } : {}) },
    ];
  };
  render([]);
  qp.busy = true;
  const listed: Promise<{ ids: string[]; problem?: string }> = s.provider === "vscode-lm" ? languageModels().then((ids) => ({ ids })) : serverModels(s, keys, log);
  void listed.then((r) => {
    qp.busy = false;
    render(r.ids, r.problem);
  });
  const picked = await new Promise<(vscode.QuickPickItem & { choice?: ModelChoice }) | undefined>((resolve) => {
    qp.onDidAccept(() => resolve(qp.selectedItems[0]));
    qp.onDidHide(() => resolve(undefined));
    qp.show();
  });
  qp.dispose();
  if (!picked) return;
  let model = picked.choice?.model;
  if (!model) {
    model = (
      await vscode.window.showInputBox({
        title: "Yoke: Switch Model",
        prompt: `A model name for ${s.provider}`,
        value: s.model,
        validateInput: (v) => (v.trim() ? undefined : "Enter a model name, or press Escape to cancel."),
      })
    )?.trim();
  }
  if (!model || model === s.model) return;
  await writeSetting("model", model);
  log.info(`model switched to ${model} (${s.provider})`);
}
