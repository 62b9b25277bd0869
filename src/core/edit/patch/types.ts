/**
 * Multi-file patches as models send them (OpenAI's V4A `apply_patch` envelope and unified diffs),
 * after parsing: one operation per file, each update a list of chunks located by their content.
 */

/** One line of a chunk: kept context, a removed line or an added line. */
export interface ChunkLine {
  kind: "ctx" | "del" | "add";
  text: string;
}

/** A run of context, removed and added lines, located in the file by its old side. */
export interface PatchChunk {
  lines: ChunkLine[];
  /** V4A `@@ header` lines (nearest last): lines of the file the chunk follows, e.g. `def f():`. */
  headers: string[];
  /** Unified diff `@@ -L,S`: the old start line, used only to choose between several exact matches. */
  lineHint?: number;
  /** `*** End of File`: the chunk ends at the last line of the file. */
  eof?: boolean;
  /** Unified diff `\ No newline at end of file` after the old / the new side's last line. */
  oldNoEol?: boolean;
  newNoEol?: boolean;
  /** 1-based line of the chunk in the patch text (for messages). */
  at: number;
}

export type FilePatch =
  { op: "add"; path: string; lines: string[]; crlf: boolean; noEol?: boolean } | { op: "delete"; path: string } | { op: "update"; path: string; moveTo?: string; chunks: PatchChunk[] };

export type PatchDialect = "apply_patch" | "unified_diff";

export interface ParsedPatch {
  dialect: PatchDialect;
  files: FilePatch[];
  /** Liberties taken in reading it (a missing `*** End Patch`, a fence around it...). */
  notes: string[];
}

export type ParseResult = ({ ok: true } & ParsedPatch) | { ok: false; dialect?: PatchDialect; message: string };
