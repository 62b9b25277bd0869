/** Small helpers shared by the edit engine tests. */
import { applyEditsToBytes, type BytesOutcome } from "../../../src/core/edit/apply-edits";
import { parseEditBlocks } from "../../../src/core/edit/block-parser";
import { lineTag } from "../../../src/core/edit/hashline";
import type { EditInput, SearchReplaceBlock } from "../../../src/core/edit/types";

const encoder = new TextEncoder();

export function bytes(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Applies edits to `file` (a string; undefined = missing file) as "f.ts". */
export function edit(file: string | undefined, edits: EditInput[]): BytesOutcome {
  return applyEditsToBytes(file === undefined ? undefined : bytes(file), edits, "f.ts");
}

/** The new content, failing the test with the refusal message when the edit was refused. */
export function applied(file: string, edits: EditInput[]): string {
  const r = edit(file, edits);
  if (!r.ok) throw new Error(`expected the edit to apply, got:\n${r.message}`);
  return r.after;
}

export function refused(file: string | undefined, edits: EditInput[]): string {
  const r = edit(file, edits);
  if (r.ok) throw new Error(`expected a refusal, got:\n${JSON.stringify(r.after)}`);
  return r.message;
}

export function blocks(text: string): SearchReplaceBlock[] {
  const r = parseEditBlocks(text);
  if (!r.ok) throw new Error(r.message);
  return r.blocks;
}

/** One SEARCH/REPLACE block from line arrays. */
export function block(search: string[], replace: string[]): SearchReplaceBlock {
  return { kind: "block", search, replace };
}

/** The anchor of 1-based line `n` of `file`. */
export function anchor(file: string, n: number): string {
  const lines = file.replace(/\r\n/g, "\n").split("\n");
  return lineTag(n, lines[n - 1]!);
}
