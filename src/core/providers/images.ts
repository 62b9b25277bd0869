/**
 * Images for the model (an MCP tool's result, an MCP prompt's message): which ones are sent, and
 * how a provider that takes none says so. Harness-neutral: the bytes are base64 strings.
 *
 * Yoke has no image library, so an image is never downscaled: one over MAX_IMAGE_BYTES, of a type
 * the providers do not take, or beyond MAX_IMAGES per message is described in text instead.
 */
import type { ImagePart, ModelMessage } from "./types";

/** The largest image sent (decoded bytes). Anthropic takes up to 5 MB, OpenAI 20 MB; the session log keeps each image, so the bound is lower. */
export const MAX_IMAGE_BYTES = 1024 * 1024;
/** Images sent with one message or tool result at most; later ones are described. */
export const MAX_IMAGES = 4;
/** The types both Anthropic and OpenAI take. */
export const MODEL_IMAGE_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/** Decoded size of base64 data. */
export function base64Bytes(data: string): number {
  const clean = data.replace(/\s+/g, "");
  const pad = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - pad);
}

export function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} bytes`;
}

/**
 * Whether an image may go to the model: the image to send, or why not (shown to the model in its
 * place). `already`: images already admitted for this message.
 */
export function admitImage(mimeType: string | undefined, data: string | undefined, already: number): { image: ImagePart } | { why: string } {
  const type = (mimeType ?? "").toLowerCase();
  if (!data) return { why: "no data" };
  const bytes = base64Bytes(data);
  if (!MODEL_IMAGE_TYPES.includes(type)) return { why: `${type || "an unknown type"} is not a type the model takes (${MODEL_IMAGE_TYPES.join(", ")})` };
  if (bytes > MAX_IMAGE_BYTES) return { why: `larger than ${sizeText(MAX_IMAGE_BYTES)}, Yoke's bound for an image (it cannot downscale)` };
  if (already >= MAX_IMAGES) return { why: `more than ${MAX_IMAGES} images in one message` };
  return { image: { mimeType: type, data: data.replace(/\s+/g, "") } };
}

/**
 * The conversation for a provider that takes no images (the VS Code language model API, a
 * provider without image input): each image becomes a note in the text, so the model knows one
 * was given and not shown.
 */
export function imagesAsNotes(messages: readonly ModelMessage[], who: string): ModelMessage[] {
  return messages.map((m) => {
    if (m.role === "assistant" || !m.images?.length) return m;
    const list = m.images.map((i) => `${i.mimeType}, ${sizeText(base64Bytes(i.data))}`).join("; ");
    const noteText = `[${m.images.length === 1 ? "an image" : `${m.images.length} images`} (${list}) not shown to the model: ${who} takes no images]`;
    if (m.role === "user") return { role: "user", text: `${m.text}\n${noteText}` };
    return { role: "tool", callId: m.callId, name: m.name, content: `${m.content}\n${noteText}`, isError: m.isError };
  });
}
