// Images in the conversation: which are admitted, and how each wire format carries them.
import { describe, expect, it } from "vitest";
import { toAnthropicMessages } from "../../../src/core/providers/anthropic-messages";
import { admitImage, imagesAsNotes, MAX_IMAGE_BYTES, MAX_IMAGES } from "../../../src/core/providers/images";
import { TOOL_IMAGES_NOTE, toOpenAiMessages } from "../../../src/core/providers/openai";
import type { ModelMessage } from "../../../src/core/providers/types";

const png = { mimeType: "image/png", data: Buffer.from("\x89PNG....", "binary").toString("base64") };
const conversation: ModelMessage[] = [
  { role: "user", text: "look", images: [png] },
  {
    role: "assistant",
    text: "",
    toolCalls: [
      { id: "c1", name: "shot", input: {} },
      { id: "c2", name: "echo", input: {} },
    ],
  },
  { role: "tool", callId: "c1", name: "shot", content: "[image 1, attached]", isError: false, images: [png] },
  { role: "tool", callId: "c2", name: "echo", content: "hi", isError: false },
  { role: "assistant", text: "done", toolCalls: [] },
];

describe("admitting images", () => {
  it("PNG/JPEG/GIF/WebP up to the bound; others refused with the reason", () => {
    expect(admitImage("image/png", png.data, 0)).toEqual({ image: png });
    expect(admitImage("image/svg+xml", png.data, 0)).toEqual({ why: "image/svg+xml is not a type the model takes (image/png, image/jpeg, image/gif, image/webp)" });
    const big = Buffer.alloc(MAX_IMAGE_BYTES + 1).toString("base64");
    expect(admitImage("image/png", big, 0)).toEqual({ why: "larger than 1.0 MB, Yoke's bound for an image (it cannot downscale)" });
    expect(admitImage("image/png", png.data, MAX_IMAGES)).toEqual({ why: `more than ${MAX_IMAGES} images in one message` });
  });
});

describe("wire formats", () => {
  it("Anthropic: image blocks after the user's text and inside the tool_result", () => {
    const out = toAnthropicMessages({ system: "", tools: [], messages: conversation });
    expect(out[0]!.content.map((b) => b.type)).toEqual(["text", "image"]);
    const results = out[2]!.content as Array<{ type: string; content?: unknown }>;
    expect(results[0]).toMatchObject({
      type: "tool_result",
      tool_use_id: "c1",
      content: [
        { type: "text", text: "[image 1, attached]" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: png.data } },
      ],
    });
    expect(results[1]).toMatchObject({ type: "tool_result", tool_use_id: "c2", content: "hi" });
  });

  it("OpenAI: the tool messages stay text and together; one user message with the images follows them", () => {
    const out = toOpenAiMessages({ system: "", tools: [], messages: conversation });
    expect(out.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool", "user", "assistant"]);
    expect(out[0]!.content).toEqual([
      { type: "text", text: "look" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${png.data}` } },
    ]);
    expect(out[2]!.content).toBe("[image 1, attached]");
    expect(out[4]!.content).toEqual([
      { type: "text", text: TOOL_IMAGES_NOTE },
      { type: "text", text: "shot (call c1):" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${png.data}` } },
    ]);
  });

  it("a provider that takes no images gets a note in their place", () => {
    const out = imagesAsNotes(conversation, "the VS Code language model API provider");
    expect(out[0]).toEqual({ role: "user", text: "look\n[an image (image/png, 8 bytes) not shown to the model: the VS Code language model API provider takes no images]" });
    expect(out[2]).toEqual({
      role: "tool",
      callId: "c1",
      name: "shot",
      content: "[image 1, attached]\n[an image (image/png, 8 bytes) not shown to the model: the VS Code language model API provider takes no images]",
      isError: false,
    });
  });
});
