/**
 * Elicitation forms (MCP `elicitation/create`, form mode): the server's requested schema — an
 * object of primitive fields — as the fields a form or a terminal asks for, and the validation of
 * what the user entered. Shared by the host (which validates again before answering the server),
 * the panel's form and the CLI's prompts. Pure: no DOM, no Node.
 */

export interface ElicitOption {
  value: string;
  label: string;
}

interface FieldBase {
  name: string;
  /** The schema's title, or the property name. */
  label: string;
  description?: string;
  required: boolean;
}

export type ElicitField =
  | (FieldBase & { kind: "string"; format?: string; minLength?: number; maxLength?: number; default?: string })
  | (FieldBase & { kind: "number" | "integer"; minimum?: number; maximum?: number; default?: number })
  | (FieldBase & { kind: "boolean"; default?: boolean })
  | (FieldBase & { kind: "enum"; options: ElicitOption[]; default?: string })
  | (FieldBase & { kind: "multi"; options: ElicitOption[]; minItems?: number; maxItems?: number; default?: string[] });

export type ElicitValue = string | number | boolean | string[];

/** What the user answered: MCP's ElicitResult. */
export type ElicitAnswer = { action: "accept"; content: Record<string, ElicitValue> } | { action: "decline" } | { action: "cancel" };

/** A server's form request, as hosts show it. */
export interface ElicitRequest {
  server: string;
  message: string;
  fields: ElicitField[];
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

function options(schema: Record<string, unknown>): ElicitOption[] | undefined {
  const list = (schema.oneOf ?? schema.anyOf) as unknown;
  if (Array.isArray(list)) {
    const out = list.flatMap((o: Record<string, unknown>) => (o && typeof o.const === "string" ? [{ value: o.const, label: str(o.title) ?? o.const }] : []));
    if (out.length) return out;
  }
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? (schema.enumNames as unknown[]) : [];
    return schema.enum.filter((v): v is string => typeof v === "string").map((v, i) => ({ value: v, label: str(names[i]) ?? v }));
  }
  return undefined;
}

/**
 * The fields of a requested schema, in the schema's order. Throws on a property that is not a
 * primitive (string, number, integer, boolean, an enum, or an array of enum values): MCP allows
 * only these in a form, so such a request is refused rather than half shown.
 */
export function elicitFields(schema: unknown): ElicitField[] {
  if (!schema || typeof schema !== "object") throw new Error("the requested schema is not an object schema");
  const s = schema as { properties?: Record<string, Record<string, unknown>>; required?: unknown };
  const required = new Set(Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === "string") : []);
  const fields: ElicitField[] = [];
  for (const [name, p] of Object.entries(s.properties ?? {})) {
    if (!p || typeof p !== "object") throw new Error(`the field "${name}" has no schema`);
    const base = { name, label: str(p.title) ?? name, ...(str(p.description) ? { description: str(p.description) } : {}), required: required.has(name) };
    const type = p.type;
    if (type === "array") {
      const items = (p.items ?? {}) as Record<string, unknown>;
      const opts = options(items);
      if (!opts) throw new Error(`the field "${name}" is a list of something other than choices`);
      const def = Array.isArray(p.default) ? p.default.filter((v): v is string => typeof v === "string") : undefined;
      fields.push({
        ...base,
        kind: "multi",
        options: opts,
        ...(num(p.minItems) !== undefined ? { minItems: num(p.minItems) } : {}),
        ...(num(p.maxItems) !== undefined ? { maxItems: num(p.maxItems) } : {}),
        ...(def ? { default: def } : {}),
      });
      continue;
    }
    const opts = type === "string" || type === undefined ? options(p) : undefined;
    if (opts) {
      fields.push({ ...base, kind: "enum", options: opts, ...(str(p.default) !== undefined ? { default: str(p.default) } : {}) });
    } else if (type === "string") {
      fields.push({
        ...base,
        kind: "string",
        ...(str(p.format) ? { format: str(p.format) } : {}),
        ...(num(p.minLength) !== undefined ? { minLength: num(p.minLength) } : {}),
        ...(num(p.maxLength) !== undefined ? { maxLength: num(p.maxLength) } : {}),
        ...(str(p.default) !== undefined ? { default: str(p.default) } : {}),
      });
    } else if (type === "number" || type === "integer") {
      fields.push({
        ...base,
        kind: type,
        ...(num(p.minimum) !== undefined ? { minimum: num(p.minimum) } : {}),
        ...(num(p.maximum) !== undefined ? { maximum: num(p.maximum) } : {}),
        ...(num(p.default) !== undefined ? { default: num(p.default) } : {}),
      });
    } else if (type === "boolean") {
      fields.push({ ...base, kind: "boolean", ...(typeof p.default === "boolean" ? { default: p.default } : {}) });
    } else throw new Error(`the field "${name}" has the type ${JSON.stringify(type)}, which a form cannot ask for`);
  }
  return fields;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function checkFormat(format: string | undefined, v: string): string | undefined {
  if (!format) return undefined;
  if (format === "email" && !EMAIL.test(v)) return "an email address (name@example.com)";
  if (format === "date" && (!DATE.test(v) || Number.isNaN(Date.parse(v)))) return "a date (YYYY-MM-DD)";
  if (format === "date-time" && Number.isNaN(Date.parse(v))) return "a date and time (2025-01-31T12:00:00Z)";
  if (format === "uri") {
    try {
      new URL(v);
    } catch {
      return "a URL (https://…)";
    }
  }
  return undefined;
}

/**
 * What the user entered (text from a form or a terminal, a boolean, a list of choices), checked
 * against the fields and converted to the types the schema asks for. An empty optional field is
 * left out. Either the content or, per field, what is wrong.
 */
export function validateElicitation(fields: readonly ElicitField[], raw: Record<string, unknown>): { content: Record<string, ElicitValue> } | { errors: Record<string, string> } {
  const content: Record<string, ElicitValue> = {};
  const errors: Record<string, string> = {};
  for (const f of fields) {
    const v = raw[f.name];
    const empty = v === undefined || v === null || (typeof v === "string" && v.trim() === "") || (Array.isArray(v) && v.length === 0 && f.kind === "multi");
    if (empty && f.kind !== "boolean") {
      if (f.required) errors[f.name] = "required";
      continue;
    }
    switch (f.kind) {
      case "string": {
        const s = String(v);
        const bad = checkFormat(f.format, s);
        if (bad) errors[f.name] = `must be ${bad}`;
        else if (f.minLength !== undefined && s.length < f.minLength) errors[f.name] = `at least ${f.minLength} characters`;
        else if (f.maxLength !== undefined && s.length > f.maxLength) errors[f.name] = `at most ${f.maxLength} characters`;
        else content[f.name] = s;
        break;
      }
      case "number":
      case "integer": {
        const n = typeof v === "number" ? v : Number(String(v).trim());
        if (!Number.isFinite(n)) errors[f.name] = "must be a number";
        else if (f.kind === "integer" && !Number.isInteger(n)) errors[f.name] = "must be a whole number";
        else if (f.minimum !== undefined && n < f.minimum) errors[f.name] = `at least ${f.minimum}`;
        else if (f.maximum !== undefined && n > f.maximum) errors[f.name] = `at most ${f.maximum}`;
        else content[f.name] = n;
        break;
      }
      case "boolean": {
        if (v === undefined || v === null || v === "") {
          if (f.default !== undefined) content[f.name] = f.default;
          else if (f.required) errors[f.name] = "required";
          break;
        }
        const b = typeof v === "boolean" ? v : /^(y|yes|true|1|on)$/i.test(String(v).trim()) ? true : /^(n|no|false|0|off)$/i.test(String(v).trim()) ? false : undefined;
        if (b === undefined) errors[f.name] = "yes or no";
        else content[f.name] = b;
        break;
      }
      case "enum": {
        const s = String(v).trim();
        // A choice may be given by its value, its label, or (in a terminal) its number.
        const hit = f.options.find((o) => o.value === s) ?? f.options.find((o) => o.label.toLowerCase() === s.toLowerCase()) ?? (/^\d+$/.test(s) ? f.options[Number(s) - 1] : undefined);
        if (!hit) errors[f.name] = `one of ${f.options.map((o) => o.label).join(", ")}`;
        else content[f.name] = hit.value;
        break;
      }
      case "multi": {
        const parts = Array.isArray(v)
          ? v.map(String)
          : String(v)
              .split(",")
              .map((x) => x.trim())
              .filter(Boolean);
        const picked: string[] = [];
        let bad: string | undefined;
        for (const p of parts) {
          const hit = f.options.find((o) => o.value === p) ?? f.options.find((o) => o.label.toLowerCase() === p.toLowerCase()) ?? (/^\d+$/.test(p) ? f.options[Number(p) - 1] : undefined);
          if (!hit) bad = p;
          else if (!picked.includes(hit.value)) picked.push(hit.value);
        }
        if (bad !== undefined) errors[f.name] = `"${bad}" is not one of ${f.options.map((o) => o.label).join(", ")}`;
        else if (f.minItems !== undefined && picked.length < f.minItems) errors[f.name] = `choose at least ${f.minItems}`;
        else if (f.maxItems !== undefined && picked.length > f.maxItems) errors[f.name] = `choose at most ${f.maxItems}`;
        else content[f.name] = picked;
        break;
      }
    }
  }
  return Object.keys(errors).length ? { errors } : { content };
}

/** One line of what a form answered, for the log ("name, check, integer"): the field names, never the values. */
export function answeredFields(content: Record<string, ElicitValue>): string {
  const keys = Object.keys(content);
  return keys.length ? `fields ${keys.join(", ")}` : "no fields";
}
