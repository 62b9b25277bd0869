/**
 * The session's model, switchable for one turn (a custom command's `model`): requests go to the
 * override while it is set, else to the session's own provider. The system prompt and the tools
 * stay the same, so the conversation's prefix does not change.
 */
import type { Provider } from "../providers/types";

export interface SwitchableProvider {
  provider: Provider;
  /** undefined: back to the session's own model. */
  use(override: Provider | undefined): void;
}

export function switchableProvider(base: Provider): SwitchableProvider {
  let current: Provider | undefined;
  const now = () => current ?? base;
  const provider: Provider = {
    get id() {
      return now().id;
    },
    get model() {
      return now().model;
    },
    get ownRetries() {
      return now().ownRetries;
    },
    stream: (req) => now().stream(req),
  };
  return { provider, use: (p) => void (current = p) };
}
