// The URLs an MCP server may ask the user to open (src/core/mcp/client-requests.ts ElicitUrl, built
// on first use since session 20): http and https only, anything else refused with the reason the
// model and the log are given.
import { describe, expect, it } from "vitest";
import { ElicitUrl } from "../../../src/core/mcp/client-requests";

describe("ElicitUrl", () => {
  it("accepts http and https URLs and refuses other schemes and non-URLs with a reason (no exception)", () => {
    for (const ok of ["https://auth.example.com/device?code=1", "http://127.0.0.1:8080/cb"]) expect(ElicitUrl().safeParse(ok)).toEqual({ success: true, data: ok });
    for (const bad of ["javascript:alert(1)", "file:///etc/passwd", "vscode://x/y"]) {
      const r = ElicitUrl().safeParse(bad);
      expect(r.success, bad).toBe(false);
      expect(r.error?.issues[0]?.message, bad).toBe("only http and https URLs are opened");
    }
    // Not a URL at all: refused with zod's reason first (the scheme check used to throw "Invalid URL" here).
    const notUrl = ElicitUrl().safeParse("not a url");
    expect(notUrl.success).toBe(false);
    expect(notUrl.error?.issues.map((i) => i.message)).toEqual(["Invalid URL", "only http and https URLs are opened"]);
    expect(ElicitUrl()).toBe(ElicitUrl()); // one schema, made once
  });
});
