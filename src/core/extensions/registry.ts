/**
 * The extension registry of one session: handlers per point, run in priority order with
 * stop-propagation, each failure contained and reported.
 */
import type { NewEvent, SessionEvent } from "../events";
import type { Disposable, Logger } from "../ports";
import type { ToolDefinition } from "../tools/types";
import type { Extension, ExtensionApi, Handler, HandlerOptions, PointInput, PointName, PointResult, SessionInfo } from "./types";

interface Registered {
  extension: string;
  point: PointName;
  handler: Handler<PointName>;
  priority: number;
  failClosed: boolean;
  order: number;
}

/** One handler's answer, or its failure. */
export type HandlerOutcome<P extends PointName> =
  { extension: string; result: PointResult<P> | undefined; error?: undefined } | { extension: string; result?: undefined; error: string; failClosed: boolean };

export interface RunOptions<P extends PointName> {
  signal: AbortSignal;
  /**
   * Threads the input through the handlers: called after each answer with the input the next
   * handler gets (tool.before: the rewritten arguments). Default: the same input for all.
   */
  next?: (input: PointInput<P>, result: PointResult<P>, from: { extension: string; failClosed: boolean }) => PointInput<P> | Promise<PointInput<P>>;
}

export class ExtensionRegistry {
  private readonly handlers: Registered[] = [];
  private readonly teardown: Disposable[] = [];
  private readonly observers: Array<{ extension: string; listener: (event: SessionEvent) => void }> = [];
  private order = 0;
  /** Extensions that added tools to this session (a sub-agent shares those tools instead of setting them up again). */
  readonly toolProviders = new Set<string>();
  /** The extension that added each tool. */
  private readonly owners = new Map<ToolDefinition, string>();

  constructor(
    private readonly session: SessionInfo,
    private readonly record: (event: NewEvent) => void,
    private readonly log: Logger,
    private readonly tools?: { add(tools: readonly ToolDefinition[]): void },
  ) {}

  /** Sets up each extension for this session; one that fails to set up is reported and left out. */
  async install(extensions: readonly Extension[]): Promise<void> {
    const names = new Set<string>();
    for (const ext of extensions) {
      if (names.has(ext.name)) throw new Error(`two extensions are named "${ext.name}"; extension names must be unique`);
      names.add(ext.name);
      const mine: Registered[] = [];
      let settingUp = true;
      const staged: ToolDefinition[] = [];
      const api: ExtensionApi = {
        session: this.session,
        on: (point, handler, opts?: HandlerOptions) => {
          const r: Registered = {
            extension: ext.name,
            point,
            handler: handler as unknown as Handler<PointName>,
            priority: opts?.priority ?? 0,
            failClosed: opts?.failClosed ?? false,
            order: this.order++,
          };
          this.handlers.push(r);
          mine.push(r);
          return { dispose: () => this.remove(r) };
        },
        record: (event) => this.record(event),
        onEvent: (listener) => {
          const o = { extension: ext.name, listener };
          this.observers.push(o);
          return {
            dispose: () => {
              const i = this.observers.indexOf(o);
              if (i >= 0) this.observers.splice(i, 1);
            },
          };
        },
        addTools: (tools) => {
          if (!settingUp) throw new Error(`extension "${ext.name}" added tools after its setup: tools can only be added during setup`);
          if (!this.tools) throw new Error("this session does not take tools from extensions");
          staged.push(...tools);
        },
      };
      try {
        const d = await ext.setup(api);
        settingUp = false;
        // Tools join the session only when the whole setup succeeded (a duplicate name fails it).
        if (staged.length > 0) {
          this.tools!.add(staged);
          this.toolProviders.add(ext.name);
          for (const t of staged) this.owners.set(t, ext.name);
        }
        if (d) this.teardown.push(d);
      } catch (err) {
        for (const r of mine) this.remove(r);
        this.failed(ext.name, "setup", err);
      } finally {
        settingUp = false;
      }
    }
  }

  /** The extension that added this tool (undefined: a tool the session was created with). */
  ownerOf(tool: ToolDefinition): string | undefined {
    return this.owners.get(tool);
  }

  has(point: PointName): boolean {
    return this.handlers.some((h) => h.point === point);
  }

  /** Runs the handlers of `point` in order; every answer (or failure) is returned, in order. */
  async run<P extends PointName>(point: P, input: PointInput<P>, opts: RunOptions<P>): Promise<Array<HandlerOutcome<P>>> {
    const list = this.handlers.filter((h) => h.point === point).sort((a, b) => b.priority - a.priority || a.order - b.order);
    const out: Array<HandlerOutcome<P>> = [];
    let current = input;
    for (const h of list) {
      if (opts.signal.aborted) throw opts.signal.reason;
      let stopped = false;
      try {
        const result = (await h.handler(current, {
          session: this.session,
          signal: opts.signal,
          stopPropagation: () => {
            stopped = true;
          },
        })) as PointResult<P> | undefined;
        out.push({ extension: h.extension, result: result ?? undefined });
        if (result && opts.next) current = await opts.next(current, result, { extension: h.extension, failClosed: h.failClosed });
      } catch (err) {
        if (opts.signal.aborted) throw err;
        this.failed(h.extension, point, err);
        out.push({ extension: h.extension, error: message(err), failClosed: h.failClosed });
      }
      if (stopped) break;
    }
    return out;
  }

  /** Tells the observers (ExtensionApi.onEvent) of an event just stored. */
  notify(event: SessionEvent): void {
    for (const o of [...this.observers]) {
      try {
        o.listener(event);
      } catch (err) {
        this.log.error(`extension ${o.extension} failed observing a ${event.type} event`, err);
      }
    }
  }

  dispose(): void {
    for (const d of this.teardown.splice(0)) {
      try {
        d.dispose();
      } catch (err) {
        this.log.error("extension teardown failed", err);
      }
    }
    this.handlers.length = 0;
    this.observers.length = 0;
  }

  private remove(r: Registered): void {
    const i = this.handlers.indexOf(r);
    if (i >= 0) this.handlers.splice(i, 1);
  }

  private failed(extension: string, point: string, err: unknown): void {
    this.log.error(`extension ${extension} failed at ${point}`, err);
    try {
      this.record({ type: "extension", name: extension, point, outcome: "error", detail: message(err) });
    } catch (e) {
      this.log.error("could not record an extension failure", e);
    }
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
