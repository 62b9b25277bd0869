/**
 * Architect mode: one model plans, another (cheaper) one writes the edits. One mechanism, two
 * parts made together for one session by `architectMode()`:
 *
 * - a Provider that routes each request: in the plan phase to the planner, offered only the
 *   read-only tools and told it plans (a suffix of the system prompt, stable for the whole phase
 *   so its prompt cache hits); in the edit phase to the editor, with the session's own system
 *   prompt and every tool;
 * - an Extension that decides the phase from the session log (so a resumed session is in the
 *   right phase): a prompt of the user starts the plan phase; when the planner finishes with a
 *   plan, turn.after hands over with a nudge (a user message from the extension that starts with
 *   HANDOFF_PREFIX) and every request after it, until the user's next prompt, goes to the editor
 *   (also those after another extension's nudge, e.g. a failed verification). A call of a tool
 *   that is not read-only during the plan phase is answered without running.
 *
 * The planner may end its answer with the line NO_EDITS when the request needs no change (a
 * question): no hand-over then. Usage and cost are recorded against the model that answered
 * (`provider.model` is the model of the last request).
 */
import type { SessionEvent } from "../events";
import type { Extension } from "../extensions/types";
import { parseFallbackSpec, type FallbackSpec } from "../fallback";
import type { ChatRequest, Provider, ProviderEvent } from "../providers/types";
import { isReadOnly, type ToolDefinition } from "../tools/types";

export const ARCHITECT_EXTENSION = "architect";

/** The setting (`architect` in .yoke/settings.json / ~/.yoke/settings.json, VS Code `yoke.architect`). */
export interface ArchitectSettings {
  /** The planning model; absent: the session's model. `model` or `provider:model`. */
  model?: FallbackSpec;
  /** The (cheaper) model that writes the edits. `model` or `provider:model`. */
  editorModel: FallbackSpec;
}

/**
 * `{ "model"?: string, "editorModel": string }`; absent, null or `{}` is off. Anything else is a
 * clear error naming `where`.
 */
export function parseArchitectSettings(value: unknown, where = "architect"): ArchitectSettings | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) throw new Error(`${where} must be an object: {"editorModel": "model or provider:model", "model": "(optional) the planning model"}`);
  const v = value as Record<string, unknown>;
  for (const k of Object.keys(v)) if (k !== "model" && k !== "editorModel") throw new Error(`${where}.${k} is not a setting of architect mode (use "model" and "editorModel")`);
  if (v.editorModel === undefined && v.model === undefined) return undefined;
  if (typeof v.editorModel !== "string" || !v.editorModel.trim()) throw new Error(`${where}.editorModel must name the model that writes the edits ("model" or "provider:model")`);
  if (v.model !== undefined && (typeof v.model !== "string" || !v.model.trim())) throw new Error(`${where}.model must be a model name ("model" or "provider:model") or left out`);
  const spec = (text: string, key: string) => {
    try {
      return parseFallbackSpec(text);
    } catch (err) {
      throw new Error(`${where}.${key}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  };
  return { editorModel: spec(v.editorModel, "editorModel"), ...(typeof v.model === "string" ? { model: spec(v.model, "model") } : {}) };
}

/** Starts the hand-over message; the provider and the log recognise the edit phase by it. */
export const HANDOFF_PREFIX = "Architect mode: the plan above is final.";
/** The planner's last line when nothing needs to change. */
export const NO_EDITS = "NO_EDITS";

export function handoffText(planner: string, editor: string): string {
  return (
    `${HANDOFF_PREFIX} It was written by the planning model (${planner}). You are the editor model (${editor}): carry the plan out now with the tools — ` +
    "make every change it describes, exactly and completely, reading a file first where you need its current text. Do not plan again and do not change what the plan does not ask for. " +
    "If a step cannot be done as written, do the closest correct thing and say why. When you are done, say in a few lines what you changed."
  );
}

export function plannerSystemSuffix(editor: string): string {
  return (
    "\n\n# Architect mode: you are the planner\n" +
    `You plan; another model (${editor}) makes the edits after you. Use the read-only tools to read what you need, then answer with a concrete, ordered plan: ` +
    "each file to change, what to change in it (functions, lines, new code where it matters) and why, and how to check the result. " +
    "You cannot edit files or run commands in this phase. Write the plan for a capable engineer who has not seen this conversation's reasoning. " +
    `If the request needs no change to any file (a question, an explanation), answer it directly and end with a line that says only ${NO_EDITS}.`
  );
}

export type ArchitectPhase = "plan" | "edit";

/** The phase of the log's last turn: "edit" once the hand-over came after the user's last prompt. */
export function phaseOf(events: readonly SessionEvent[]): ArchitectPhase {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.type !== "user_message") continue;
    if (e.from === "extension" && e.text.startsWith(HANDOFF_PREFIX)) return "edit";
    if (e.from === undefined || e.from === "user") return "plan";
  }
  return "plan";
}

export interface ArchitectModeOptions {
  planner: Provider;
  editor: Provider;
  /** The session's tools: only the read-only ones are offered to the planner. */
  tools: readonly ToolDefinition[];
}

/**
 * Makes the provider and the extension of architect mode for ONE session (the phase is that
 * session's): put `provider` in AgentSessionOptions.provider and `extension` in its extensions.
 */
export function architectMode(opts: ArchitectModeOptions): { provider: Provider; extension: Extension } {
  const { planner, editor } = opts;
  const readOnly = new Set(opts.tools.filter((t) => isReadOnly(t.capabilities)).map((t) => t.name));
  let phase: ArchitectPhase = "plan";
  let last: Provider = planner;
  const label = (p: Provider) => `${p.id}:${p.model}`;

  const provider: Provider = {
    get id() {
      return last.id;
    },
    get model() {
      return last.model;
    },
    // Both sides are usually fallback chains that retry themselves; otherwise the loop retries.
    ownRetries: planner.ownRetries && editor.ownRetries,
    async *stream(req: ChatRequest): AsyncIterable<ProviderEvent> {
      const editing = phase === "edit";
      last = editing ? editor : planner;
      yield* editing ? editor.stream(req) : planner.stream({ ...req, system: req.system + plannerSystemSuffix(label(editor)), tools: req.tools.filter((t) => readOnly.has(t.name)) });
    },
  };

  const extension: Extension = {
    name: ARCHITECT_EXTENSION,
    setup(api) {
      phase = phaseOf(api.session.events());
      api.on("prompt.submit", () => {
        phase = "plan";
      });
      // Before each request: the phase the log says (a hand-over nudge was just logged, or a resume).
      api.on("request.prepare", () => {
        phase = phaseOf(api.session.events());
      });
      api.on(
        "tool.before",
        ({ tool }) => {
          if (phase !== "plan" || isReadOnly(tool.capabilities)) return;
          return {
            respond: `Not run: in architect mode the planner (${label(planner)}) only reads. Write the plan instead; the editor model (${label(editor)}) makes the changes after you.`,
          };
        },
        { priority: 1000 },
      );
      api.on("turn.after", ({ final, text }) => {
        if (phase !== "plan" || !final) return;
        const plan = text.trim();
        if (!plan || /(^|\n)\s*NO_EDITS\s*$/.test(plan)) return;
        phase = "edit";
        return { nudge: handoffText(label(planner), label(editor)) };
      });
    },
  };
  return { provider, extension };
}
