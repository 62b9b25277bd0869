/** How the scripted server cuts text into stream chunks (several per text, deterministic). */

/** Text in pieces of about two words; a single long word is cut in half. */
export function splitText(text: string): string[] {
  if (!text) return [];
  const tokens = text.match(/\s*\S+\s*/g) ?? [text];
  if (tokens.length === 1 && text.length > 1) {
    const mid = Math.ceil(text.length / 2);
    return [text.slice(0, mid), text.slice(mid)];
  }
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i += 2) out.push(tokens.slice(i, i + 2).join(""));
  return out;
}

/** A JSON string in pieces of `size` characters (at least two pieces when it is longer than one). */
export function splitJson(json: string, size = 12): string[] {
  if (json.length <= 1) return [json];
  const step = Math.min(size, Math.ceil(json.length / 2));
  const out: string[] = [];
  for (let i = 0; i < json.length; i += step) out.push(json.slice(i, i + step));
  return out;
}
