// Runs the operations on one key one after another (double clicks, a stop during a decision).
export class SerialQueue {
  private readonly tails = new Map<string, Promise<void>>();

  constructor(private readonly onError: (key: string, err: unknown) => void) {}

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const next = (this.tails.get(key) ?? Promise.resolve()).then(fn, fn);
    const tail = next.then(
      () => undefined,
      (err) => this.onError(key, err),
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }
}
