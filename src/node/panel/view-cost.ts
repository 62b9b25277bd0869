// What a turn (or the whole session) cost, as the panel counts it: the core's totals, the cache
// breaks, and the estimated tokens of each tool's results.
import { tokensOfText } from "../../core/compaction/tokens";
import { toolsLine, type CostTotals, type ToolCost } from "../../core/cost";

/** A turn's (or the session's) spend as the panel counts it. */
export interface PanelCost extends CostTotals {
  cacheBreaks: number;
  tools: ToolCost[];
  addTool(name: string, chars: number): void;
}

export function emptyCost(): PanelCost {
  const c: PanelCost = {
    requests: 0,
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    cacheBreaks: 0,
    tools: [],
    addTool(name, chars) {
      let t = c.tools.find((x) => x.name === name);
      if (!t) c.tools.push((t = { name, calls: 0, resultTokens: 0 }));
      t.calls++;
      t.resultTokens += tokensOfText(chars);
    },
  };
  return c;
}

/** The tooltip of a turn's cost line: the tokens in full and what each tool's results added. */
export function costDetail(c: PanelCost): string {
  const tools = [...c.tools].sort((a, b) => b.resultTokens - a.resultTokens || a.name.localeCompare(b.name));
  return [
    `${c.inputTokens} uncached input, ${c.cacheReadTokens} read from the cache, ${c.cacheWriteTokens} written to it; ${c.outputTokens} output tokens`,
    tools.length ? `Tool results (estimated tokens): ${toolsLine(tools)}` : "",
  ]
    .filter(Boolean)
    .join("\n");
}
