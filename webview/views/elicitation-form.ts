// An MCP server's form (elicitation), pinned above the prompt like a permission question: the
// server, its message, one input per field of the requested schema (text, number, a checkbox, a
// choice, a set of choices; required fields marked, defaults filled in), Accept / Decline / Cancel.
// The host validates what is entered (src/core/mcp/elicitation.ts) and sends the form back with
// the errors when something is wrong.
import type { ElicitFieldView, McpElicitationView } from "../../src/protocol/messages";
import { button } from "../ui/components";
import { clear, el } from "../ui/dom";

export type ElicitationAnswer = { id: string; action: "accept" | "decline" | "cancel"; content?: Record<string, string | number | boolean | string[]> };

type Reader = () => string | boolean | string[] | undefined;

function input(f: ElicitFieldView, id: string): { node: HTMLElement; read: Reader } {
  const testid = `elicit-${f.name}`;
  switch (f.kind) {
    case "boolean": {
      const box = el("input", { type: "checkbox", id, "data-testid": testid }) as HTMLInputElement;
      box.checked = f.default === true;
      return { node: box, read: () => box.checked };
    }
    case "enum": {
      const sel = el("select", { id, "data-testid": testid }, [
        ...(f.required && f.default !== undefined ? [] : [el("option", { value: "" }, ["—"])]),
        ...(f.options ?? []).map((o) => el("option", { value: o.value }, [o.label])),
      ]) as HTMLSelectElement;
      if (typeof f.default === "string") sel.value = f.default;
      return { node: sel, read: () => sel.value };
    }
    case "multi": {
      const boxes = (f.options ?? []).map((o) => {
        const b = el("input", { type: "checkbox", value: o.value, "data-testid": `${testid}-${o.value}` }) as HTMLInputElement;
        b.checked = Array.isArray(f.default) && f.default.includes(o.value);
        return { b, label: el("label", { class: "elicit-choice" }, [b, ` ${o.label}`]) };
      });
      return {
        node: el(
          "div",
          { id, class: "elicit-choices", "data-testid": testid },
          boxes.map((x) => x.label),
        ),
        read: () => boxes.filter((x) => x.b.checked).map((x) => x.b.value),
      };
    }
    default: {
      const type = f.kind === "number" || f.kind === "integer" ? "number" : f.format === "email" ? "email" : f.format === "uri" ? "url" : f.format === "date" ? "date" : "text";
      const box = el("input", { type, id, "data-testid": testid, ...(f.kind === "integer" ? { step: "1" } : f.kind === "number" ? { step: "any" } : {}) }) as HTMLInputElement;
      if (f.minimum !== undefined) box.min = String(f.minimum);
      if (f.maximum !== undefined) box.max = String(f.maximum);
      if (f.default !== undefined && !Array.isArray(f.default)) box.value = String(f.default);
      return { node: box, read: () => box.value };
    }
  }
}

export class ElicitationForm {
  readonly root = el("div", { class: "elicitation-slot" });
  private shown: McpElicitationView | null = null;

  constructor(private readonly onAnswer: (answer: ElicitationAnswer) => void) {}

  show(request: McpElicitationView | null): void {
    // The same form again without errors: keep what the user typed.
    if (request && this.shown && request.id === this.shown.id && JSON.stringify(request.errors ?? {}) === JSON.stringify(this.shown.errors ?? {})) return;
    const kept = request && this.shown?.id === request.id ? this.values() : undefined;
    clear(this.root);
    this.shown = request;
    this.readers.clear();
    if (!request) return;
    const rows = request.fields.map((f) => {
      const id = `elicit-${request.id}-${f.name}`;
      const { node, read } = input(f, id);
      this.readers.set(f.name, read);
      const error = request.errors?.[f.name];
      return el("div", { class: `elicit-field${error ? " invalid" : ""}`, "data-field": f.name }, [
        el("label", { for: id, class: "elicit-label" }, [f.label, f.required ? el("span", { class: "elicit-required", title: "required" }, [" *"]) : null]),
        f.description ? el("div", { class: "elicit-description" }, [f.description]) : null,
        node,
        error ? el("div", { class: "elicit-error", "data-testid": "elicit-error", role: "alert" }, [error]) : null,
      ]);
    });
    const answer = (action: ElicitationAnswer["action"]) => {
      if (!this.shown || this.shown.id !== request.id) return;
      if (action === "accept") this.onAnswer({ id: request.id, action, content: this.contentOf(request.fields) });
      else {
        this.onAnswer({ id: request.id, action });
        this.show(null);
      }
    };
    this.root.appendChild(
      el(
        "div",
        { class: "elicitation-card permission-card", "data-testid": "elicitation-card", "data-server": request.server, role: "dialog", "aria-label": `Form from the MCP server ${request.server}` },
        [
          el("div", { class: "permission-title" }, ["The MCP server ", el("strong", {}, [request.server]), " asks for input"]),
          el("div", { class: "elicit-message" }, [request.message]),
          el("form", { class: "elicit-fields" }, rows),
          el("div", { class: "permission-actions" }, [
            button({ label: "Accept", testid: "elicit-accept", onClick: () => answer("accept") }),
            button({ label: "Decline", appearance: "secondary", testid: "elicit-decline", onClick: () => answer("decline") }),
            button({ label: "Cancel", appearance: "secondary", testid: "elicit-cancel", onClick: () => answer("cancel") }),
          ]),
        ],
      ),
    );
    if (kept) this.restore(kept);
  }

  private readonly readers = new Map<string, Reader>();

  private values(): Map<string, ReturnType<Reader>> {
    return new Map([...this.readers].map(([k, r]) => [k, r()]));
  }

  private restore(values: Map<string, ReturnType<Reader>>): void {
    for (const [name, v] of values) {
      const field = this.root.querySelector(`[data-field="${CSS.escape(name)}"]`);
      if (!field) continue;
      if (Array.isArray(v)) field.querySelectorAll<HTMLInputElement>("input[type=checkbox]").forEach((b) => (b.checked = v.includes(b.value)));
      else if (typeof v === "boolean") {
        const box = field.querySelector<HTMLInputElement>("input");
        if (box) box.checked = v;
      } else if (v !== undefined) {
        const box = field.querySelector<HTMLInputElement | HTMLSelectElement>("input, select");
        if (box) box.value = v;
      }
    }
  }

  /** What is entered, as text the host validates; an empty optional text field is left out. */
  private contentOf(fields: readonly ElicitFieldView[]): Record<string, string | number | boolean | string[]> {
    const out: Record<string, string | number | boolean | string[]> = {};
    for (const f of fields) {
      const v = this.readers.get(f.name)?.();
      if (v === undefined || v === "") continue;
      out[f.name] = v;
    }
    return out;
  }
}
