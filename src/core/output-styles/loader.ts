/** Reads output style files: Markdown with frontmatter `name`, `description`, `keep-coding-instructions`; the body is the style's instructions. */
import type { CommandFiles } from "../custom-commands/types";
import { firstParagraph, parseFrontmatter } from "../guidance/frontmatter";
import { joinPath } from "../paths";

export interface OutputStyle {
  /** `name`, else the file name without `.md`. */
  name: string;
  description?: string;
  /** Keep Yoke's coding instructions in the system prompt (default: the style replaces them). */
  keepCodingInstructions: boolean;
  /** The style's instructions. */
  text: string;
  /** Absolute file path; "" for the built-in default. */
  path: string;
  origin: string;
}

export interface OutputStyleSource {
  dir: string;
  /** "project", "user", "plugin:NAME"; highest priority first (a project style overrides a user style of the same name). */
  origin: string;
  /** Only these files of `dir` (a plugin.json naming single style files); else every `*.md` directly in it. */
  files?: readonly string[];
  /** A plugin's name: its styles are `PLUGIN:NAME`, as its commands and skills are. */
  namespace?: string;
}

export interface LoadedOutputStyles {
  styles: OutputStyle[];
  problems: Array<{ path: string; line?: number; message: string }>;
}

export function parseOutputStyle(path: string, origin: string, raw: string): { style?: OutputStyle; problem?: { path: string; line?: number; message: string } } {
  const fm = parseFrontmatter(raw);
  if (fm.problem) return { problem: { path, line: fm.problem.line, message: fm.problem.message } };
  const file = path.slice(path.lastIndexOf("/") + 1).replace(/\.md$/, "");
  const name = typeof fm.data.name === "string" && fm.data.name.trim() ? fm.data.name.trim() : file;
  const text = fm.body.trim();
  if (!text) return { problem: { path, message: "the style has no instructions (the body is empty)" } };
  const keep = fm.data["keep-coding-instructions"];
  // Claude Code: without a description, the body's first paragraph describes the style (as a command's).
  const description = typeof fm.data.description === "string" && fm.data.description.trim() ? fm.data.description.trim() : firstParagraph(fm.body);
  return {
    style: {
      name,
      ...(description ? { description } : {}),
      keepCodingInstructions: keep === true || keep === "true",
      text,
      path,
      origin,
    },
  };
}

export async function loadOutputStyles(files: CommandFiles, sources: readonly OutputStyleSource[]): Promise<LoadedOutputStyles> {
  const styles: OutputStyle[] = [];
  const problems: LoadedOutputStyles["problems"] = [];
  for (const source of sources) {
    const listed = source.files ? [...source.files] : await files.list(source.dir).catch(() => [] as string[]);
    const rels = listed.filter((r) => !r.includes("/") && r.endsWith(".md")).sort();
    for (const rel of rels) {
      const path = joinPath(source.dir, rel);
      const raw = await files.read(path).catch((err: unknown) => (err instanceof Error ? err : undefined));
      if (raw === undefined || raw instanceof Error) {
        problems.push({ path, message: raw instanceof Error ? raw.message : "cannot be read" });
        continue;
      }
      const r = parseOutputStyle(path, source.origin, raw);
      if (r.problem) problems.push(r.problem);
      if (!r.style) continue;
      if (source.namespace) r.style.name = `${source.namespace}:${r.style.name}`;
      const same = styles.find((s) => s.name.toLowerCase() === r.style!.name.toLowerCase());
      if (same && same.origin === r.style.origin) problems.push({ path, message: `output style "${r.style.name}" is also defined by ${same.path}, which is used` });
      if (!same) styles.push(r.style);
    }
  }
  return { styles, problems };
}

/** The style of this name (case folded, as Claude Code's menu matches it). */
export function findStyle(styles: readonly OutputStyle[], name: string): OutputStyle | undefined {
  const n = name.trim().toLowerCase();
  return styles.find((s) => s.name.toLowerCase() === n);
}
