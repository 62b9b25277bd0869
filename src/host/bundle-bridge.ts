// extension.js and session.js are separate bundles, so each has its own copy of core classes.
// An object made in extension.js (e.g. the change reviewer) throws extension.js's ToolError, which
// fails `instanceof ToolError` in the core. The bridge re-throws such errors as session.js's class.
import { ToolError } from "../core/tools/types";

function asLocalToolError(err: unknown): unknown {
  if (err instanceof Error && !(err instanceof ToolError) && err.name === "ToolError") {
    const local = new ToolError(err.message);
    local.stack = err.stack;
    return local;
  }
  return err;
}

/** Wraps an object so its methods' ToolErrors (sync or async) are this bundle's ToolError. */
export function bridgeToolErrors<T extends object>(target: T): T {
  return new Proxy(target, {
    get(obj, key) {
      const value: unknown = Reflect.get(obj, key);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        try {
          const out: unknown = value.apply(obj, args);
          return out instanceof Promise ? out.catch((err: unknown) => Promise.reject(asLocalToolError(err))) : out;
        } catch (err) {
          throw asLocalToolError(err);
        }
      };
    },
  });
}

/** An object with methods (a service), not a data structure such as a Map or an AbortSignal. */
function isService(v: unknown): v is object {
  return typeof v === "object" && v !== null && !(v instanceof Map || v instanceof Set || Array.isArray(v) || v instanceof EventTarget);
}

/** Bridges every service member of a toolContext handed over from the other bundle. */
export function bridgeToolContext<T extends object>(ctx: T | undefined): T | undefined {
  if (!ctx) return ctx;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(ctx)) out[k] = isService(v) ? bridgeToolErrors(v) : v;
  return out as T;
}
