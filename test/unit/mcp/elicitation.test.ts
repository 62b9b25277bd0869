// Elicitation forms: a server's requested schema as fields, and what the user entered validated
// and converted to the schema's types (src/core/mcp/elicitation.ts).
import { describe, expect, it } from "vitest";
import { elicitFields, validateElicitation } from "../../../src/core/mcp/elicitation";

const SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name", minLength: 2 },
    email: { type: "string", format: "email" },
    age: { type: "integer", minimum: 1, maximum: 150, default: 30 },
    ratio: { type: "number" },
    agree: { type: "boolean", default: false },
    color: { type: "string", enum: ["r", "g"], enumNames: ["Red", "Green"] },
    hero: { type: "string", oneOf: [{ const: "h1", title: "Superman" }] },
    tags: { type: "array", minItems: 1, maxItems: 2, items: { type: "string", enum: ["a", "b", "c"] } },
  },
  required: ["name", "email"],
};

describe("elicitFields", () => {
  it("reads every primitive kind, labels, required and defaults in order", () => {
    const f = elicitFields(SCHEMA);
    expect(f.map((x) => [x.name, x.kind, x.required])).toEqual([
      ["name", "string", true],
      ["email", "string", true],
      ["age", "integer", false],
      ["ratio", "number", false],
      ["agree", "boolean", false],
      ["color", "enum", false],
      ["hero", "enum", false],
      ["tags", "multi", false],
    ]);
    expect(f[0]).toMatchObject({ label: "Name", minLength: 2 });
    expect(f[2]).toMatchObject({ default: 30, minimum: 1, maximum: 150 });
    expect(f[5]).toMatchObject({
      options: [
        { value: "r", label: "Red" },
        { value: "g", label: "Green" },
      ],
    });
    expect(f[6]).toMatchObject({ options: [{ value: "h1", label: "Superman" }] });
  });

  it("refuses a field a form cannot ask for", () => {
    expect(() => elicitFields({ type: "object", properties: { nested: { type: "object" } } })).toThrow('the field "nested" has the type "object"');
    expect(() => elicitFields({ type: "object", properties: { list: { type: "array", items: { type: "number" } } } })).toThrow("a list of something other than choices");
  });
});

describe("validateElicitation", () => {
  const fields = elicitFields(SCHEMA);

  it("converts text to the schema's types; choices by value, label or number", () => {
    const r = validateElicitation(fields, { name: "Ada", email: "ada@example.com", age: "42", ratio: "0.5", agree: "yes", color: "Green", hero: "1", tags: "a, C" });
    expect(r).toEqual({ content: { name: "Ada", email: "ada@example.com", age: 42, ratio: 0.5, agree: true, color: "g", hero: "h1", tags: ["a", "c"] } });
  });

  it("says per field what is wrong", () => {
    const r = validateElicitation(fields, { name: "A", email: "not-an-email", age: "1.5", agree: "maybe", color: "blue", tags: ["a", "b", "c"] });
    expect(r).toEqual({
      errors: {
        name: "at least 2 characters",
        email: "must be an email address (name@example.com)",
        age: "must be a whole number",
        agree: "yes or no",
        color: "one of Red, Green",
        tags: "choose at most 2",
      },
    });
    expect(validateElicitation(fields, {})).toEqual({ errors: { name: "required", email: "required" } });
  });

  it("leaves empty optional fields out; an unanswered yes/no takes its default", () => {
    expect(validateElicitation(fields, { name: "Ada", email: "a@b.co", ratio: "", age: "  " })).toEqual({ content: { name: "Ada", email: "a@b.co", agree: false } });
  });
});
