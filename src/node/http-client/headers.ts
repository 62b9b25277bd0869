/**
 * `FetchHeaders`: the WHATWG Fetch `Headers` class without undici. Node's global `Headers` lives in
 * its bundled undici, and touching it loads all of undici (~20 ms of CPU in a fresh process,
 * docs/benchmarks.md, "HTTP client"): Yoke's client (node-fetch.ts) answers with these, and the
 * provider SDK bundles use this class for their own `new Headers()` (esbuild.mjs, sdk-globals.ts).
 *
 * As the specification has it: names are tokens, compared without case and listed in lower case,
 * sorted; values lose leading and trailing HTTP whitespace and may not hold NUL, CR or LF;
 * `append` of a name already there joins the values with ", " (as `get` shows them), except
 * `set-cookie`, which iterates one entry per value (`getSetCookie`). Guards (immutable, request)
 * and forbidden header names are browser concerns that undici does not apply either.
 * test/unit/node/http-client-headers.test.ts compares it with undici's class operation by operation.
 */

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

function headerName(name: unknown): string {
  const s = String(name);
  if (!TOKEN.test(s)) throw new TypeError(`Headers: "${s}" is an invalid header name.`);
  return s.toLowerCase();
}

function headerValue(value: unknown): string {
  const s = String(value).replace(EDGE_WHITESPACE, "");
  if (/[\0\r\n]/.test(s)) throw new TypeError(`Headers: "${s}" is an invalid header value.`);
  return s;
}

export type FetchHeadersInit = Iterable<readonly [string, string]> | Record<string, string> | FetchHeaders | Headers;

export class FetchHeaders implements Headers {
  readonly #values = new Map<string, string[]>();

  constructor(init?: FetchHeadersInit | null) {
    if (init === undefined || init === null) return;
    if (typeof init !== "object") throw new TypeError("Headers: the init is neither a record nor a sequence of pairs.");
    if (Symbol.iterator in init) {
      for (const pair of init as Iterable<readonly string[]>) {
        if (pair.length !== 2) throw new TypeError("Headers: a header pair must have exactly a name and a value.");
        this.append(pair[0]!, pair[1]!);
      }
    } else for (const name of Object.keys(init)) this.append(name, (init as Record<string, string>)[name]!);
  }

  append(name: string, value: string): void {
    const key = headerName(name);
    const v = headerValue(value);
    const list = this.#values.get(key);
    if (list) list.push(v);
    else this.#values.set(key, [v]);
  }

  set(name: string, value: string): void {
    this.#values.set(headerName(name), [headerValue(value)]);
  }

  delete(name: string): void {
    this.#values.delete(headerName(name));
  }

  get(name: string): string | null {
    return this.#values.get(headerName(name))?.join(", ") ?? null;
  }

  has(name: string): boolean {
    return this.#values.has(headerName(name));
  }

  getSetCookie(): string[] {
    return [...(this.#values.get("set-cookie") ?? [])];
  }

  *entries(): IterableIterator<[string, string]> {
    for (const key of [...this.#values.keys()].sort()) {
      const list = this.#values.get(key);
      if (!list) continue;
      if (key === "set-cookie") for (const v of list) yield [key, v];
      else yield [key, list.join(", ")];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [k] of this.entries()) yield k;
  }

  *values(): IterableIterator<string> {
    for (const [, v] of this.entries()) yield v;
  }

  forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) callback.call(thisArg, v, k, this);
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return "Headers";
  }
}
