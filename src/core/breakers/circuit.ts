/**
 * A circuit breaker: CLOSED → OPEN after `threshold` consecutive failures; after `cooldownMs` the
 * next caller gets HALF_OPEN and is the one probe let through; its success closes the circuit,
 * its failure opens it again for another cooldown. Time comes from an injectable clock.
 */

export type CircuitState = "closed" | "open" | "half_open";

export interface CircuitOptions {
  /** Consecutive failures that open the circuit. */
  threshold: number;
  /** How long an open circuit refuses before it lets one probe through. */
  cooldownMs: number;
  /** Milliseconds since some fixed point (default Date.now). */
  now?: () => number;
}

/** What a caller is told before it runs. */
export type Admission = { allowed: true; probe: boolean } | { allowed: false; retryInMs: number; failures: number; lastError?: string };

/** A state change, for the log. */
export interface Transition {
  from: CircuitState;
  to: CircuitState;
  failures: number;
  lastError?: string;
}

export class Circuit {
  private state: CircuitState = "closed";
  private failures = 0;
  private openedAt = 0;
  private probing = false;
  private probeAt = 0;
  private lastError: string | undefined;
  private readonly now: () => number;

  constructor(private readonly opts: CircuitOptions) {
    if (!Number.isInteger(opts.threshold) || opts.threshold < 1) throw new Error(`a breaker threshold must be a positive integer (got ${opts.threshold})`);
    if (!(opts.cooldownMs >= 0)) throw new Error(`a breaker cooldown must be 0 or more milliseconds (got ${opts.cooldownMs})`);
    this.now = opts.now ?? Date.now;
  }

  get current(): CircuitState {
    return this.state;
  }

  get consecutiveFailures(): number {
    return this.failures;
  }

  /** May a call go ahead? An open circuit past its cooldown turns half-open and admits one probe. */
  admit(): { admission: Admission; transition?: Transition } {
    if (this.state === "closed") return { admission: { allowed: true, probe: false } };
    const elapsed = this.now() - this.openedAt;
    if (this.state === "open" && elapsed >= this.opts.cooldownMs) {
      this.state = "half_open";
      this.probing = true;
      this.probeAt = this.now();
      return { admission: { allowed: true, probe: true }, transition: { from: "open", to: "half_open", failures: this.failures, lastError: this.lastError } };
    }
    // A probe that never reported (its call was cancelled) frees its slot after a cooldown.
    if (this.state === "half_open" && (!this.probing || this.now() - this.probeAt >= this.opts.cooldownMs)) {
      this.probing = true;
      this.probeAt = this.now();
      return { admission: { allowed: true, probe: true } };
    }
    const retryInMs = this.state === "open" ? Math.max(0, this.opts.cooldownMs - elapsed) : this.opts.cooldownMs;
    return { admission: { allowed: false, retryInMs, failures: this.failures, ...(this.lastError ? { lastError: this.lastError } : {}) } };
  }

  /** The call succeeded (a half-open probe that succeeds closes the circuit). */
  success(): Transition | undefined {
    const from = this.state;
    this.failures = 0;
    this.probing = false;
    this.lastError = undefined;
    this.state = "closed";
    return from === "closed" ? undefined : { from, to: "closed", failures: 0 };
  }

  /** The call failed: counts towards the threshold; a failed probe opens the circuit again at once. */
  failure(error?: string): Transition | undefined {
    this.failures++;
    this.lastError = error;
    const from = this.state;
    if (from === "half_open" || (from === "closed" && this.failures >= this.opts.threshold)) {
      this.state = "open";
      this.openedAt = this.now();
      this.probing = false;
      return { from, to: "open", failures: this.failures, lastError: error };
    }
    return undefined;
  }

  /** The call ended in a way that says nothing about health (cancelled): a probe slot is freed. */
  neutral(): void {
    this.probing = false;
  }
}

/** Circuits by key, made on first use with the same options. */
export class CircuitSet {
  private readonly circuits = new Map<string, Circuit>();
  constructor(private readonly opts: CircuitOptions) {}
  get(key: string): Circuit {
    let c = this.circuits.get(key);
    if (!c) {
      c = new Circuit(this.opts);
      this.circuits.set(key, c);
    }
    return c;
  }
}

/** "30 s", "2 min" for messages. */
export function formatWait(ms: number): string {
  const s = Math.ceil(ms / 1000);
  return s < 120 ? `${s} s` : `${Math.ceil(s / 60)} min`;
}
