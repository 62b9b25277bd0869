/** Small pieces of a session's plumbing: its listeners, and the approver it asks one question at a time. */
import type { Disposable } from "../ports";
import type { Approver } from "./types";

/** Asks one question at a time: a second waits until the first is answered (or its call was stopped). */
export function serialApprover(approver: Approver): Approver {
  let last: Promise<unknown> = Promise.resolve();
  return {
    ask(question, signal) {
      const turn = last.then(() => (signal.aborted ? { decision: "deny" as const, message: "The run was stopped." } : approver.ask(question, signal)));
      last = turn.catch(() => undefined);
      return turn;
    },
  };
}

/** Listeners of one kind; a listener that throws does not stop the others. */
export class Listeners<T> {
  private readonly set = new Set<(value: T) => void>();

  add(listener: (value: T) => void): Disposable {
    this.set.add(listener);
    return { dispose: () => this.set.delete(listener) };
  }

  fire(value: T, onError: (err: unknown) => void): void {
    for (const l of this.set) {
      try {
        l(value);
      } catch (err) {
        onError(err);
      }
    }
  }
}
