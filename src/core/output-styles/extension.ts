/**
 * `/output-style [NAME]` during a session: the change is appended to the log at once (a persisted
 * context message, kept through compaction, so a resumed session has it too) and reaches the model
 * with the next request; the system prompt the session started with is never rewritten, so the
 * cached prefix stays. Without a name it lists the styles.
 */
import type { Extension } from "../extensions/types";
import { findStyle, type LoadedOutputStyles, type OutputStyle } from "./loader";

export const OUTPUT_STYLE_EXTENSION = "output-style";

export interface OutputStylesOptions {
  load(): Promise<LoadedOutputStyles>;
  /** The style the session started with (undefined: Yoke's default). */
  initial?: string;
}

/** What the model is told when the user switches styles mid-session. */
export function styleChangeText(style: OutputStyle | undefined): string {
  if (!style) return "The user switched the output style back to Yoke's default: the instructions of the earlier output style no longer apply; work and answer as your system prompt says.";
  return [
    `The user switched the output style to "${style.name}". From now on, these instructions replace any earlier output style${style.keepCodingInstructions ? "" : ' and take precedence over the general "How to work" guidance of your system prompt where they differ'}:`,
    style.text,
  ].join("\n\n");
}

export function outputStylesExtension(opts: OutputStylesOptions): Extension {
  return {
    name: OUTPUT_STYLE_EXTENSION,
    setup(api) {
      let current: string | undefined = opts.initial;
      // The style chosen last in this session's log (a resumed session keeps the switch).
      for (const e of api.session.events()) if (e.type === "context" && e.source === OUTPUT_STYLE_EXTENSION) current = /^The user switched the output style to "([^"]+)"/.exec(e.text)?.[1];
      const switchTo = (text: string) => api.record({ type: "context", source: OUTPUT_STYLE_EXTENSION, text, persist: true });
      api.on(
        "prompt.expand",
        async ({ text }) => {
          const m = /^\/output-style(?:\s+([\s\S]*))?$/.exec(text.trim());
          if (!m) return undefined;
          const { styles } = await opts.load();
          const wanted = (m[1] ?? "").trim();
          const names = ["default", ...styles.map((s) => s.name)];
          if (!wanted) return { handled: `Output style: ${current ?? "default"}. Available: ${names.join(", ")}. Choose one with /output-style NAME.` };
          if (wanted.toLowerCase() === "default") {
            if (!current) return { handled: "The output style is already the default." };
            current = undefined;
            switchTo(styleChangeText(undefined));
            return { handled: "Output style: default (from your next message on)." };
          }
          const style = findStyle(styles, wanted);
          if (!style) return { handled: `No output style is named "${wanted}". Available: ${names.join(", ")}.` };
          current = style.name;
          switchTo(styleChangeText(style));
          return { handled: `Output style: ${style.name} (from your next message on).` };
        },
        { priority: 10 },
      );
    },
  };
}
