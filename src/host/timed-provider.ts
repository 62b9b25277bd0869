// Logs each model request's timing and token usage to the output channel (never keys or content).
import type { Logger } from "../core/ports";
import type { Provider } from "../core/providers/types";

export function withTiming(provider: Provider, log: Logger): Provider {
  return {
    id: provider.id,
    model: provider.model,
    async *stream(req) {
      const started = Date.now();
      let firstMs: number | undefined;
      let input = 0;
      let output = 0;
      let stop = "";
      log.info(`request ${provider.id}/${provider.model}: ${req.messages.length} messages, ${req.tools.length} tools`);
      try {
        for await (const ev of provider.stream(req)) {
          if (firstMs === undefined && ev.type !== "usage") firstMs = Date.now() - started;
          if (ev.type === "usage") {
            input += ev.usage.inputTokens;
            output += ev.usage.outputTokens;
          } else if (ev.type === "done") stop = ev.stopReason;
          yield ev;
        }
        log.info(`response ${provider.id}/${provider.model}: ${Date.now() - started} ms (first event ${firstMs ?? "-"} ms), ${input} in / ${output} out, stop ${stop || "?"}`);
      } catch (err) {
        const kind = (err as { kind?: string }).kind ?? "error";
        log.warn(`request ${provider.id}/${provider.model} failed after ${Date.now() - started} ms: ${kind}: ${err instanceof Error ? err.message : String(err)}`);
        throw err;
      }
    },
  };
}
