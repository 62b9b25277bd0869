import { describe, expect, it } from "vitest";
import { formatDuration, formatTokens, formatUsage } from "../../../webview/format";

describe("usage meter text", () => {
  it("shows tokens and cost when the price is known", () => {
    expect(formatUsage({ inputTokens: 12_345, outputTokens: 1_234, cacheReadTokens: 0, costUsd: 0.0412 })).toBe("12.3k in · 1.2k out · $0.04");
  });

  it("shows tokens only when the cost is unknown", () => {
    expect(formatUsage({ inputTokens: 950, outputTokens: 12, cacheReadTokens: 0 })).toBe("950 in · 12 out");
  });

  it("marks a tiny cost instead of rounding it to zero", () => {
    expect(formatUsage({ inputTokens: 10, outputTokens: 1, cacheReadTokens: 0, costUsd: 0.0004 })).toBe("10 in · 1 out · <$0.01");
  });

  it("abbreviates large token counts", () => {
    expect(formatTokens(1000)).toBe("1k");
    expect(formatTokens(250_000)).toBe("250k");
    expect(formatTokens(1_500_000)).toBe("1.5M");
  });

  it("formats tool durations for the card header", () => {
    expect(formatDuration(42)).toBe("42 ms");
    expect(formatDuration(1500)).toBe("1.5 s");
    expect(formatDuration(125_000)).toBe("2 min 5 s");
  });
});
