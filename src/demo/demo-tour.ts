/**
 * The demo model's tour (`npm start -- --demo`, or "Try the demo model" in the panel's first-run
 * view): one suggested prompt per feature, each answered by a fixed plan that makes the feature
 * happen for real in any workspace — a two-hunk edit_file reviewed in the editor, a read-only command
 * in the sandbox and the Yoke terminal, a command that asks for permission (answer "Always allow"
 * and the same command runs again without a question), a loop the stuck detector stops, and a
 * context compaction (the model reports a nearly full context window, so Yoke compacts before the
 * next request), and a checkpoint restore (the model changes a file; the person restores the turn
 * before and the file is back). Every answer says it comes from the demo model.
 */
import type { RecordedRequest, ScriptedTurn } from "./types";
import { readExchange, type Exchange, type ToolStep } from "./wire-conversation";

const CHUNK_DELAY_MS = 8;
export const DEMO_BANNER = "**Demo model.**";

export interface DemoPrompt {
  /** The feature, for the button ("Review an edit"). */
  label: string;
  /** What the button sends. */
  text: string;
}

type Plan = (ex: Exchange, req: RecordedRequest) => ScriptedTurn;

interface TourStop extends DemoPrompt {
  plan: Plan;
}

const say = (text: string): ScriptedTurn => ({ text: `${DEMO_BANNER} ${text}`, chunkDelayMs: CHUNK_DELAY_MS });
const call = (text: string, name: string, input: unknown, extra: Partial<ScriptedTurn> = {}): ScriptedTurn => ({
  text: `${DEMO_BANNER} ${text}`,
  toolCalls: [{ name, input }],
  chunkDelayMs: CHUNK_DELAY_MS,
  ...extra,
});
const stepsOf = (ex: Exchange, name: string): ToolStep[] => ex.steps.filter((s) => s.name === name);
const firstLine = (s: ToolStep | undefined) => (s?.output.split("\n").find((l) => l.trim()) ?? "").slice(0, 240);
const offers = (ex: Exchange, name: string) => ex.tools.includes(name);

/** Said when the tools a stop needs are not offered (Restricted Mode: the folder is not trusted). */
function needsTrust(what: string): ScriptedTurn {
  return say(
    `I cannot ${what} here: this folder is in Restricted Mode, so Yoke does not offer me tools that write files or run commands. Trust the folder ("Manage" in the banner at the top) and send this prompt again.`,
  );
}

// --- 1. a two-hunk edit, reviewed in the editor ---

/** Comment syntax for a line added to a file of this name. */
function commentFor(path: string, text: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase() ?? "";
  if (["md", "markdown", "html", "htm", "xml", "svg", "vue"].includes(ext)) return `<!-- ${text} -->`;
  if (["py", "sh", "bash", "zsh", "rb", "pl", "yaml", "yml", "toml", "r", "cfg", "ini", "conf", "mk", "dockerfile"].includes(ext) || /(^|\/)(makefile|dockerfile)$/i.test(path)) return `# ${text}`;
  if (["sql", "lua", "hs"].includes(ext)) return `-- ${text}`;
  if (["txt", "rst", "adoc", ""].includes(ext)) return text;
  return `// ${text}`;
}

/** The text lines of a read_file result (`N#HH|text` lines). */
function linesOf(output: string): string[] {
  return output
    .split("\n")
    .map((l) => /^\d+#[^|]{2,}\|(.*)$/.exec(l)?.[1])
    .filter((l): l is string => l !== undefined);
}

/**
 * Two edits far apart in `lines` (two hunks): a line inserted after the first and after the last
 * non-blank line that occur once in the file, so each old_string is unique. undefined when the file
 * is too short for two separate hunks.
 */
export function twoHunkEdits(path: string, lines: string[]): Array<{ old_string: string; new_string: string }> | undefined {
  const text = lines.join("\n");
  const unique = (l: string) => l.trim().length > 0 && text.split(l).length === 2 && !l.includes("\r");
  const first = lines.findIndex(unique);
  let last = -1;
  for (let i = lines.length - 1; i > first + 3; i--) {
    if (unique(lines[i]!)) {
      last = i;
      break;
    }
  }
  if (first < 0 || last < 0) return undefined;
  const indent = (l: string) => /^\s*/.exec(l)![0];
  return [
    { old_string: lines[first]!, new_string: `${lines[first]!}\n${indent(lines[first]!)}${commentFor(path, "Change 1 of 2 by Yoke's demo model: accept this one.")}` },
    { old_string: lines[last]!, new_string: `${lines[last]!}\n${indent(lines[last]!)}${commentFor(path, "Change 2 of 2 by Yoke's demo model: reject this one.")}` },
  ];
}

/** Top-level files of a list_files result (folders, binaries and dot files left out). */
function filesOf(listing: ToolStep): string[] {
  return listing.output
    .split("\n")
    .filter((l) => l.trim() && !/^\s/.test(l) && !l.endsWith(":") && !l.endsWith("/") && !/^[([<]/.test(l))
    .map((l) =>
      l
        .trim()
        .replace(/ \(.*\)$/, "")
        .replace(/@$/, ""),
    )
    .filter((n) => !n.includes("/") && !/\.(lock|png|jpe?g|gif|ico|pdf|zip|gz|wasm|bin)$/i.test(n) && !n.startsWith("."));
}

/** The file to edit: a README, else the first listed source or text file. */
function fileToEdit(listing: ToolStep): string | undefined {
  const names = filesOf(listing);
  return names.find((n) => /^readme(\.[a-z]+)?$/i.test(n)) ?? names.find((n) => /\.(md|ts|js|py|txt)$/i.test(n)) ?? names[0];
}

const editPlan: Plan = (ex) => {
  if (!offers(ex, "edit_file")) return needsTrust("propose an edit");
  const listing = stepsOf(ex, "list_files")[0];
  if (!listing) return call("I'll pick a file to edit: first a look at the workspace.", "list_files", { path: "." });
  const file = listing.isError ? undefined : fileToEdit(listing);
  if (!file) return say("I found no file to edit in the workspace root. Open a folder with a README or some source files and try again.");
  const read = stepsOf(ex, "read_file")[0];
  if (!read) return call(`I'll read \`${file}\` and then change it in two places.`, "read_file", { path: file });
  const edit = stepsOf(ex, "edit_file")[0];
  if (!edit) {
    const edits = twoHunkEdits(file, linesOf(read.output));
    if (!edits) return say(`\`${file}\` is too short for two separate changes. Try the prompt in a folder with a longer README.`);
    return call(
      `I'm proposing two changes to \`${file}\` in one edit_file call. Yoke shows them in the editor as two hunks, each with **Accept** and **Reject** above it: accept the first, reject the second. Nothing is written until you decide.`,
      "edit_file",
      { path: file, edits },
    );
  }
  return say(`Yoke told me what you decided: _${firstLine(edit)}_\n\nThe file on disk holds exactly the hunks you accepted; the model is never told a change was made when it was not.`);
};

// --- 2. a read-only command in the sandbox, shown in the Yoke terminal ---
export const SANDBOX_COMMAND = "echo 'Hello from the Yoke sandbox' && uname -sr && ls";

const sandboxPlan: Plan = (ex) => {
  if (!offers(ex, "run_command")) return needsTrust("run a command");
  const run = stepsOf(ex, "run_command")[0];
  if (!run)
    return call(
      "I'll run a read-only command. Yoke allows read-only commands inside the workspace without asking, runs them in its sandbox (no writes, no network) and shows what they print in the **Yoke** terminal.",
      "run_command",
      { command: SANDBOX_COMMAND },
    );
  return say(
    `The command ran in the sandbox; its output is in the Yoke terminal (Terminal panel) and in the tool card above. It printed:\n\n\`\`\`\n${run.output.split("\n").slice(0, 8).join("\n")}\n\`\`\``,
  );
};

// --- 3. a permission question: "Always allow" ---
export const PERMISSION_COMMAND = "node --version";

const permissionPlan: Plan = (ex) => {
  if (!offers(ex, "run_command")) return needsTrust("run a command");
  const runs = stepsOf(ex, "run_command");
  if (runs.length === 0)
    return call(
      `I'll run \`${PERMISSION_COMMAND}\`. Yoke cannot prove that node is read-only, so it asks you first. Choose **Always allow**: Yoke writes a rule to your settings and does not ask for this command again.`,
      "run_command",
      { command: PERMISSION_COMMAND },
    );
  if (runs.length === 1 && !runs[0]!.isError) return call("That ran. I'll run it once more: with the rule you just allowed, Yoke does not ask again.", "run_command", { command: PERMISSION_COMMAND });
  if (runs[0]!.isError) return say(`The command did not run: _${firstLine(runs[0])}_ You decide what runs; ask again and choose **Always allow** to see the rule written.`);
  return say(`It ran a second time without a question: the rule "Always allow" wrote is in force (see \`.yoke/settings.local.json\` or your settings). Node said: \`${firstLine(runs[1])}\`.`);
};

// --- 4. a stuck loop, stopped ---
const stuckPlan: Plan = (ex) => {
  const n = stepsOf(ex, "list_files").length;
  if (n >= 12) return say("I would have gone on listing the same folder forever; this time I stop by myself. Yoke's stuck detector normally stops me earlier.");
  return call(
    n === 0
      ? "I'll now behave like a model stuck in a loop: I list the same folder again and again. Yoke's stuck detector notices the same action with the same result, nudges me once, and then stops the loop and asks you."
      : `Listing the folder again (${n + 1}).`,
    "list_files",
    { path: "." },
  );
};

// --- 5. a compaction ---
/** The provider's answer when the demo model pretends the context is full (an OpenAI-style context_length_exceeded). */
export const FULL_CONTEXT_ERROR = {
  status: 400,
  body: {
    error: {
      message: "This model's maximum context length is exceeded (Yoke's demo model pretends its context is full, to show a compaction).",
      type: "invalid_request_error",
      code: "context_length_exceeded",
    },
  },
};

const COMPACTION_PROMPT = "Demo: fill the context so it gets compacted";

/** A read-only command with a long output (about 200 KB; what the model is shown of it is cut to its head and tail). */
export const FILL_COMMAND = "seq -f 'line %g of a long output the demo model fills its context with' 1 3000";
/** How many long outputs the compaction stop fills the context with. */
const FILL_RUNS = 6;

const compacted = (req: RecordedRequest) => userTexts(req).some((t) => t.startsWith('<context source="compaction">'));

const compactionPlan: Plan = (ex, req) => {
  if (compacted(req))
    return say(
      "Yoke compacted the context and sent the request again: the divider above says what was kept verbatim (your messages, the rules in force) and how many tokens the summary saved. The context meter at the top shows the new fill.",
    );
  // A compaction summarises earlier turns: a session that has none has nothing to compact yet.
  const texts = userTexts(req).filter((t) => !t.startsWith("<context source="));
  const earlier = texts.slice(0, texts.lastIndexOf(COMPACTION_PROMPT)).filter((t) => !isNudge(t));
  if (earlier.length === 0 && stepsOf(ex, "run_command").length === 0)
    return say(
      "A compaction summarises the earlier turns of a session, and this one has none yet. Try the other suggested prompts first, then this one: I will then fill the context and Yoke will compact it.",
    );
  // Large tool results fill the conversation; older ones are what a compaction replaces by stubs.
  const runs = stepsOf(ex, "run_command");
  // Six outputs: the compaction keeps the four most recent tool results whole, so the older ones are
  // what it turns into stubs (the earlier turns of a short tour hold too little to free by themselves).
  if (offers(ex, "run_command") && runs.length < FILL_RUNS)
    return call(
      runs.length === 0
        ? "I'll fill the conversation with a few long command outputs, then pretend my context window is full: Yoke then compacts the older part (large old results become stubs it can recall, older turns a summary) and sends the request again."
        : `Another long output (${runs.length + 1} of ${FILL_RUNS}).`,
      "run_command",
      { command: FILL_COMMAND },
    );
  if (!offers(ex, "run_command")) return needsTrust("fill the context with command output");
  return { error: FULL_CONTEXT_ERROR };
};

// --- 6. a checkpoint restore ---
const CHECKPOINT_PROMPT = "Demo: change a file so I can restore a checkpoint";
/** The line the checkpoint stop adds (in the file's comment syntax). */
export const CHECKPOINT_LINE = "Added by Yoke's demo model: restore the checkpoint to take this line out again.";

/** The person's earlier prompts in this session (the turns a restore can go back to). */
function earlierTurns(req: RecordedRequest, prompt: string): number {
  const texts = userTexts(req).filter((t) => !t.startsWith("<context source=") && !isNudge(t));
  const at = texts.lastIndexOf(prompt);
  return at < 0 ? 0 : at;
}

const checkpointPlan: Plan = (ex, req) => {
  if (!offers(ex, "edit_file")) return needsTrust("change a file");
  const listing = stepsOf(ex, "list_files")[0];
  if (!listing) return call("I'll change a file, so there is something to go back from: first a look at the workspace.", "list_files", { path: "." });
  const file = listing.isError ? undefined : fileToEdit(listing);
  if (!file) return say("I found no file to change in the workspace root. Open a folder with a README or some source files and try again.");
  const read = stepsOf(ex, "read_file")[0];
  if (!read) return call(`I'll read \`${file}\` and add one line to it.`, "read_file", { path: file });
  const edit = stepsOf(ex, "edit_file")[0];
  if (!edit) {
    const lines = linesOf(read.output);
    const at = lines.findIndex((l) => l.trim().length > 0 && !l.includes("\r") && lines.join("\n").split(l).length === 2);
    if (at < 0) return say(`\`${file}\` has no line I can anchor a change to. Try the prompt in a folder with a README.`);
    const indent = /^\s*/.exec(lines[at]!)![0];
    return call(`Yoke took a checkpoint of the workspace before this turn's first change. I'm adding one line to \`${file}\`; accept it, and then take it back with the checkpoint.`, "edit_file", {
      path: file,
      edits: [{ old_string: lines[at]!, new_string: `${lines[at]!}\n${indent}${commentFor(file, CHECKPOINT_LINE)}` }],
    });
  }
  if (edit.isError) return say(`The change was not made: _${firstLine(edit)}_ There is nothing to restore; send the prompt again and accept the change to see a restore.`);
  const before = earlierTurns(req, CHECKPOINT_PROMPT);
  const how =
    before > 0
      ? `under my answer to turn ${before} (the turn before this one) press **Restore…**: the preview lists \`${file}\` with the line it takes out; choose **Files only**.`
      : "run **Yoke: Restore Checkpoint…** from the Command Palette and choose turn 0 (before the first message), then the files.";
  return say(
    `\`${file}\` now has the added line. To put it back as it was: ${how} Yoke writes the file back from its own shadow repository (your git repository is never touched), and **Undo restore** brings the line back.`,
  );
};

export const DEMO_TOUR: readonly TourStop[] = [
  { label: "Review a two-part edit", text: "Demo: edit a file in two places so I can review each change", plan: editPlan },
  { label: "Run a sandboxed command", text: "Demo: run a command in the sandbox", plan: sandboxPlan },
  { label: "Answer a permission question", text: "Demo: run a command that needs my permission", plan: permissionPlan },
  { label: "Stop a stuck loop", text: "Demo: get stuck in a loop", plan: stuckPlan },
  { label: "Compact the context", text: COMPACTION_PROMPT, plan: compactionPlan },
  { label: "Restore a checkpoint", text: CHECKPOINT_PROMPT, plan: checkpointPlan },
];

/** The suggested prompts the panel shows while the demo model is in use. */
export const DEMO_PROMPTS: readonly DemoPrompt[] = DEMO_TOUR.map(({ label, text }) => ({ label, text }));

/** Text of every user message of the request (both wire formats), oldest first. */
function userTexts(req: RecordedRequest): string[] {
  const out: string[] = [];
  const messages = Array.isArray(req.body.messages) ? (req.body.messages as Array<Record<string, unknown>>) : [];
  for (const m of messages) {
    if (m.role !== "user") continue;
    if (typeof m.content === "string") out.push(m.content);
    else if (Array.isArray(m.content)) for (const p of m.content as Array<Record<string, unknown>>) if (p.type === "text" && typeof p.text === "string") out.push(p.text);
  }
  return out;
}

/**
 * The tour's next turn when the conversation's latest prompt is one of the tour's (a nudge or a
 * compaction summary in between still counts as that prompt); undefined otherwise.
 */
export function tourTurn(req: RecordedRequest): ScriptedTurn | undefined {
  const texts = userTexts(req);
  for (let i = texts.length - 1; i >= 0; i--) {
    const stop = DEMO_TOUR.find((s) => texts[i]!.trim() === s.text);
    if (stop) {
      const ex = readExchange(req);
      // Steps since the tour prompt, even when a nudge (a user-role message) came after it.
      const since = ex.userText.trim() === stop.text ? ex : { ...ex, steps: stepsSince(req, stop.text) };
      return stop.plan(since, req);
    }
    // Another prompt of the user's came later: not a tour conversation any more.
    if (!texts[i]!.startsWith("<context source=") && !isNudge(texts[i]!)) return undefined;
  }
  return undefined;
}

/** A message the loop itself added as the user (the stuck detector's nudge). */
function isNudge(text: string): boolean {
  return /\b(stuck|same (action|call|result)|repeat)/i.test(text) && !DEMO_TOUR.some((s) => s.text === text.trim());
}

/** Tool steps after the user message `prompt`, across nudges. */
function stepsSince(req: RecordedRequest, prompt: string): ToolStep[] {
  const messages = Array.isArray(req.body.messages) ? (req.body.messages as Array<Record<string, unknown>>) : [];
  let at = -1;
  messages.forEach((m, i) => {
    if (m.role === "user" && (m.content === prompt || (Array.isArray(m.content) && (m.content as Array<Record<string, unknown>>).some((p) => p.text === prompt)))) at = i;
  });
  if (at < 0) return [];
  // The steps of the part after the prompt, read as one exchange.
  const tail = messages.slice(at).map((m, i) => (i > 0 && m.role === "user" && typeof m.content === "string" ? { ...m, content: `<context source="nudge">${m.content}` } : m));
  return readExchange({ ...req, body: { ...req.body, messages: tail } }).steps;
}
