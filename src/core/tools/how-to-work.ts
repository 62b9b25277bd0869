/**
 * The system prompt's coding instructions ("How to work"), from the tools a session has: the
 * knowledge of which tool does what lives with the tools, so the loop that builds the prompt names
 * none of them (test/unit/arch/tool-names.test.ts).
 */

/** How tools show and address lines: harness knowledge a prompt that replaces Yoke's prose keeps. */
export const HASHLINE_NOTE =
  "read_file and grep show each line as `LINE#HH|text`. The `LINE#HH` anchors are what edit_file's hashline ops refer to; a stale anchor is refused with the current lines, so retry from those.";

/** The coding instructions, naming only tools the session has (all of Yoke's when `tools` is undefined). */
export function howToWork(tools: readonly string[] | undefined): string {
  const has = (name: string) => tools === undefined || tools.includes(name);
  const finders = ["grep", "glob"].filter(has);
  const lines = ["How to work:"];
  if (has("read_file")) lines.push(`- Read before you change: ${finders.length ? `use ${finders.join("/")} to find code, then ` : ""}read_file with offset/limit for the lines you need.`);
  else lines.push("- Read before you change: find the code first, then look at only the lines you need.");
  const readers = ["read_file", "grep"].filter(has);
  if (has("edit_file") && readers.length) lines.push(`- ${HASHLINE_NOTE}`);
  // Another edit tool (apply_patch): the prefix is shown, but nothing takes the anchors.
  else if (readers.length) lines.push(`- ${readers.join(" and ")} show${readers.length === 1 ? "s" : ""} each line as \`LINE#HH|text\`; the \`LINE#HH|\` prefix is not part of the line.`);
  const editTool = ["edit_file", "apply_patch"].find(has);
  lines.push(`- Prefer small, targeted edits${editTool ? ` (${editTool})` : ""} over rewriting whole files${has("write_file") ? " (write_file)" : ""}.`);
  lines.push(
    "- When a tool returns an error, read it: it says what was wrong and how to fix it. Do not repeat the same failing call.",
    "- Keep answers short and concrete. Use markdown; put code in fenced blocks.",
  );
  if (has("todo_write")) lines.push("- For multi-step tasks, keep a todo list with todo_write.");
  return lines.join("\n");
}
