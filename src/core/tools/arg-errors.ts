/**
 * Turns zod validation issues into model-facing sentences: which argument, what was expected
 * (described from the tool's JSON Schema), what was received.
 */
import type { z } from "zod";

type Json = Record<string, unknown>;

function show(value: unknown, max = 80): string {
  if (value === undefined) return "nothing";
  let s: string;
  try {
    s = JSON.stringify(value) ?? String(value);
  } catch {
    s = String(value);
  }
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

function bounds(node: Json, unit = ""): string {
  const min = node.minimum as number | undefined;
  const max = node.maximum as number | undefined;
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}${unit}`;
  if (min !== undefined) return ` ≥ ${min}${unit}`;
  if (max !== undefined) return ` ≤ ${max}${unit}`;
  return "";
}

/** "an integer ≥ 1", "a non-empty string", "one of "a", "b"", "an array of objects"... */
export function describeSchema(node: Json | undefined): string {
  if (!node) return "a valid value";
  if (Array.isArray(node.enum)) return `one of ${(node.enum as unknown[]).map((v) => show(v)).join(", ")}`;
  if (Array.isArray(node.anyOf)) return (node.anyOf as Json[]).map(describeSchema).join(" or ");
  switch (node.type) {
    case "integer":
      return `an integer${bounds(node)}`;
    case "number":
      return `a number${bounds(node)}`;
    case "boolean":
      return "true or false";
    case "string":
      return node.minLength === 1 ? "a non-empty string" : "a string";
    case "null":
      return "null";
    case "array": {
      const items = node.items as Json | undefined;
      const objects = items?.type === "object" || (Array.isArray(items?.anyOf) && (items.anyOf as Json[]).every((m) => m.type === "object"));
      const what = objects ? "objects" : items ? `${describeSchema(items).replace(/^an? /, "")} items` : "items";
      const min = node.minItems as number | undefined;
      return `an array of ${what}${min ? ` (at least ${min})` : ""}`;
    }
    case "object": {
      const props = Object.keys((node.properties as Json | undefined) ?? {});
      return props.length ? `an object with ${props.join(", ")}` : "an object";
    }
    default:
      return "a valid value";
  }
}

function props(node: Json | undefined): Record<string, Json> {
  return (node?.properties as Record<string, Json> | undefined) ?? {};
}

/** The schema node at `path` (object properties, array items; in an anyOf, the member that has the key). */
export function schemaAt(root: Json, path: readonly PropertyKey[]): Json | undefined {
  let node: Json | undefined = root;
  for (const key of path) {
    if (!node) return undefined;
    if (Array.isArray(node.anyOf)) {
      const members = node.anyOf as Json[];
      node = typeof key === "number" ? members.find((m) => m.type === "array") : members.find((m) => String(key) in props(m));
      if (!node) return undefined;
    }
    if (typeof key === "number") node = node.items as Json | undefined;
    else node = props(node)[String(key)];
  }
  return node;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = input;
  for (const key of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/** `todos[1].status` */
export function argName(path: readonly PropertyKey[]): string {
  let s = "";
  for (const key of path) s += typeof key === "number" ? `[${key}]` : s ? `.${String(key)}` : String(key);
  return s;
}

type Issue = z.core.$ZodIssue;

/** For a failed union, the branch the model most likely meant: most shared keys, then fewest errors. */
function likelyBranch(issue: Issue & { code: "invalid_union" }, schema: Json, input: unknown): Issue[] | undefined {
  const members = schemaAt(schema, issue.path)?.anyOf as Json[] | undefined;
  const value = valueAt(input, issue.path);
  if (!issue.errors.length || !members || members.length !== issue.errors.length) return undefined;
  const keys = value && typeof value === "object" ? Object.keys(value) : [];
  let best = 0;
  let bestScore = -Infinity;
  issue.errors.forEach((errs, i) => {
    const shared = keys.filter((k) => k in props(members[i])).length;
    const score = shared * 100 - errs.length;
    if (score > bestScore) {
      best = i;
      bestScore = score;
    }
  });
  if (keys.length && bestScore < 0) return undefined;
  return issue.errors[best]!.map((e) => ({ ...e, path: [...issue.path, ...e.path] }) as Issue);
}

/** Sentences for each issue; a failed union is explained by the branch the model most likely meant. */
export function describeIssues(issues: readonly Issue[], schema: Json, input: unknown): string[] {
  return issues.flatMap((issue) => {
    if (issue.code === "invalid_union" && issue.path.length > 0) {
      const branch = likelyBranch(issue, schema, input);
      if (branch) return describeIssues(branch, schema, input);
    }
    return [describeIssue(issue, schema, input)];
  });
}

/** One sentence per issue, e.g. `argument "offset" must be an integer ≥ 1 (got "ten")`. */
export function describeIssue(issue: Issue, schema: Json, input: unknown): string {
  const path = issue.path;
  const name = argName(path);
  const node = schemaAt(schema, path);
  const got = "input" in issue ? issue.input : valueAt(input, path);
  if (path.length === 0) {
    if (issue.code === "invalid_type") return `the arguments must be a JSON object (got ${show(got)})`;
    return issue.message;
  }
  if (issue.code === "custom") return `argument "${name}": ${issue.message}`;
  if (issue.code === "unrecognized_keys") {
    return `unknown argument${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `"${k}"`).join(", ")} in "${name}"`;
  }
  if (got === undefined && issue.code === "invalid_type") {
    return `missing required argument "${name}" (${describeSchema(node)})`;
  }
  return `argument "${name}" must be ${describeSchema(node)} (got ${show(got)})`;
}

/** "path (string, required), offset (integer ≥ 1)" — the arguments a tool takes. */
export function describeArguments(schema: Json): string {
  const props = (schema.properties as Record<string, Json> | undefined) ?? {};
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries(props)
    .map(([key, node]) => `${key} (${describeSchema(node).replace(/^an? /, "")}${required.has(key) ? ", required" : ""})`)
    .join(", ");
}
