export { cacheWatchExtension } from "./extension";
export { findCacheBreak, requestShape, type CacheBreak, type RequestShape } from "./prefix";
export { addUsage, cacheBreakText, compactTokens, costLine, formatUsd, hitShare, sessionCost, toolsLine, type CostTotals, type SessionCost, type ToolCost, type TurnCost } from "./turns";
