/**
 * An ACP prompt (content blocks) as the text of a Yoke user message: text as it is, a resource
 * link as a reference the model can open with its tools (a file:// link inside the workspace
 * becomes its path), an embedded resource with its text.
 */
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { fileURLToPath } from "node:url";
import { attr, blockBody } from "../../core/composer/resolve";

function pathOf(uri: string): string {
  if (!uri.startsWith("file:")) return uri;
  try {
    return fileURLToPath(uri);
  } catch {
    return uri;
  }
}

export function promptText(blocks: readonly ContentBlock[]): string {
  const parts: string[] = [];
  for (const b of blocks) {
    switch (b.type) {
      case "text":
        parts.push(b.text);
        break;
      case "resource_link":
        parts.push(`[The user attached ${b.name}: ${pathOf(b.uri)}${b.description ? ` — ${b.description}` : ""}]`);
        break;
      case "resource": {
        const r = b.resource;
        // As the panel's attachments (src/core/composer): the text cannot close its block early, nor the path its attribute.
        if ("text" in r) parts.push(`<attached-file path="${attr(pathOf(r.uri))}">\n${blockBody(r.text, "attached-file")}\n</attached-file>`);
        else parts.push(`[The user attached ${pathOf(r.uri)} (${r.mimeType ?? "binary data"}), which cannot be shown as text.]`);
        break;
      }
      default:
        // image and audio: not declared in the prompt capabilities; a client that sends one anyway is told in the message.
        parts.push(`[The user attached ${b.type === "image" ? "an image" : "a recording"}, which this agent cannot see.]`);
    }
  }
  return parts.join("\n\n");
}
