/**
 * The demo model behind `npm start -- --demo`: a deterministic script that looks around any
 * workspace (list_files, then read_file on a README or package.json), optionally keeps a todo
 * list or writes `yoke-demo.md`, and answers in markdown, saying plainly that it is not an LLM.
 */
import type { RecordedRequest, ScriptedTurn } from "./types";
import { tourTurn } from "./demo-tour";
import { type Exchange, readExchange, type ToolStep } from "./wire-conversation";

export const DEMO_FILE = "yoke-demo.md";
const CHUNK_DELAY_MS = 8;
const MAX_STEPS = 6;

/** Top-level file names of a list_files result (folders, notes and headers left out). */
export function filesIn(listing: string): string[] {
  return listing
    .split("\n")
    .filter((l) => l.trim() && !/^\s/.test(l) && !l.endsWith(":") && !/^[([<]/.test(l))
    .map((l) => l.trim().replace(/@$/, ""))
    .filter((name) => !name.includes("/") && name.length < 120);
}

/** Every top-level entry (files and folders) of a list_files result. */
function entriesIn(listing: string): string[] {
  return listing
    .split("\n")
    .filter((l) => l.trim() && !/^\s/.test(l) && !l.endsWith(":") && !/^[([<]/.test(l))
    .map((l) => l.trim().replace(/ \(.*\)$/, ""));
}

/** The file worth reading first: a README, else package.json, else the first file. */
export function pickFile(listing: string): string | undefined {
  const files = filesIn(listing);
  return files.find((f) => /^readme(\.[a-z]+)?$/i.test(f)) ?? files.find((f) => f === "package.json") ?? files[0];
}

/** Number of lines of a read_file result ("of N" in its header, else the numbered lines). */
function lineCount(output: string): number {
  const header = /\bof (\d+)\)|\((\d+) lines?\)|(\d+) lines\)/.exec(output.split("\n")[0] ?? "");
  if (header) return Number(header[1] ?? header[2] ?? header[3]);
  return output.split("\n").filter((l) => /^\d+#/.test(l)).length || output.split("\n").length;
}

function firstTextLine(output: string): string | undefined {
  for (const l of output.split("\n").slice(1)) {
    const text = l.replace(/^\d+#..\|/, "").trim();
    if (text) return text.length > 100 ? text.slice(0, 100) + "…" : text;
  }
  return undefined;
}

const count = (n: number, one: string, many = `${one}s`) => `**${n}** ${n === 1 ? one : many}`;
const step = (ex: Exchange, name: string): ToolStep | undefined => ex.steps.find((s) => s.name === name);
const offers = (ex: Exchange, name: string) => ex.tools.includes(name);
const call = (text: string, reasoning: string, name: string, input: unknown): ScriptedTurn => ({
  text,
  reasoning,
  toolCalls: [{ name, input }],
  chunkDelayMs: CHUNK_DELAY_MS,
});

function nextToolCall(ex: Exchange): ScriptedTurn | undefined {
  if (ex.steps.length >= MAX_STEPS) return undefined;
  const asked = ex.userText.toLowerCase();
  if (offers(ex, "list_files") && !step(ex, "list_files")) {
    return call("I'm Yoke's demo model. Let me look at the workspace first.", `The user wrote: "${ex.userText.slice(0, 80)}". I'll start by listing the workspace root.`, "list_files", { path: "." });
  }
  const listing = step(ex, "list_files");
  const file = listing && !listing.isError ? pickFile(listing.output) : undefined;
  if (file && offers(ex, "read_file") && !step(ex, "read_file")) {
    return call(`Now I'll read \`${file}\`.`, `${file} looks like the best place to learn what this project is.`, "read_file", { path: file });
  }
  if (asked.includes("todo") && offers(ex, "todo_write") && !step(ex, "todo_write")) {
    return call("Here is the plan as a todo list.", "The user mentioned todos, so I'll keep a list.", "todo_write", {
      todos: [
        { content: "List the workspace", status: "completed" },
        { content: file ? `Read ${file}` : "Look for a file to read", status: "completed" },
        { content: "Summarise what I found", status: "in_progress" },
      ],
    });
  }
  if ((asked.includes("write") || asked.includes("create")) && offers(ex, "write_file") && !step(ex, "write_file")) {
    const entries = listing ? entriesIn(listing.output).length : 0;
    const content = `# Yoke demo\n\nThis file was written by Yoke's demo model to show how a file write looks.\n\nThe workspace root had ${entries} entries when it was written.\n`;
    return call(`I'll create \`${DEMO_FILE}\`.`, "The user asked me to write or create something; a small markdown file is safe.", "write_file", { path: DEMO_FILE, content });
  }
  return undefined;
}

function summary(ex: Exchange): string {
  const out = [
    "**Demo model.** This answer comes from Yoke's built-in demo model, a scripted stand-in for a real LLM: it follows a fixed plan and understands nothing. Configure a provider (Anthropic, OpenAI or an OpenAI-compatible server) for real answers.",
    "",
    `You wrote: _${ex.userText.trim().split("\n")[0].slice(0, 200)}_`,
    "",
    "What I did:",
  ];
  for (const s of ex.steps) {
    if (s.isError) out.push(`- \`${s.name}\` failed: ${s.output.split("\n")[0].slice(0, 200)}`);
    else if (s.name === "list_files") {
      const entries = entriesIn(s.output);
      const shown = entries
        .slice(0, 8)
        .map((e) => `\`${e}\``)
        .join(", ");
      out.push(`- Listed the workspace root: ${count(entries.length, "entry", "entries")} (${shown}${entries.length > 8 ? ", …" : ""}).`);
    } else if (s.name === "read_file") {
      const path = (s.input as { path?: string })?.path ?? "a file";
      const first = firstTextLine(s.output);
      out.push(`- Read \`${path}\`: ${count(lineCount(s.output), "line")}${first ? `, starting with “${first}”` : ""}.`);
    } else if (s.name === "todo_write") out.push("- Wrote a todo list of 3 items.");
    else if (s.name === "write_file") out.push(`- Created \`${DEMO_FILE}\`.`);
    else out.push(`- Called \`${s.name}\`.`);
  }
  if (!ex.steps.length) out.push("- Nothing: no tools were offered to me.");
  return out.join("\n");
}

/** The demo model's next turn for a request in either wire format. */
export function demoModel(req: RecordedRequest): ScriptedTurn {
  // The tour's suggested prompts (demo-tour.ts) each show one feature.
  const tour = tourTurn(req);
  if (tour) return tour;
  const ex = readExchange(req);
  if (!ex.userText.trim()) {
    return { text: "**Demo model.** Send a message and I will look around the workspace.", chunkDelayMs: CHUNK_DELAY_MS };
  }
  return nextToolCall(ex) ?? { text: summary(ex), chunkDelayMs: CHUNK_DELAY_MS };
}
