import { describe, expect, it } from "vitest";
import { filterEnv, isAllowedEnvName, isSecretEnvName, scrubEnv, valueHasCredential } from "../../../src/core/commands/env";

describe("filterEnv (environment by allowlist)", () => {
  const env = {
    PATH: "/usr/bin",
    HOME: "/home/u",
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    TERM: "xterm",
    JAVA_HOME: "/usr/lib/jvm/17",
    GOPATH: "/home/u/go",
    VIRTUAL_ENV: "/w/.venv",
    NODE_ENV: "test",
    ANTHROPIC_API_KEY: "sk-ant",
    OPENAI_API_KEY: "sk",
    AWS_ACCESS_KEY_ID: "A",
    GH_TOKEN: "g",
    GITHUB_TOKEN: "g",
    NPM_TOKEN: "n",
    SSH_AUTH_SOCK: "/tmp/ssh.sock",
    DB_PASSWORD: "pw",
    VSCODE_GIT_ASKPASS_MAIN: "/askpass.js",
    DISPLAY: ":0",
    LD_PRELOAD: "/evil.so",
    NODE_OPTIONS: "--require /evil.js",
    UNKNOWN_TOOL_SETTING: "x",
  };

  it("keeps the shell, locale, terminal and toolchain variables and drops everything else", () => {
    const { env: out, removed } = filterEnv(env);
    expect(Object.keys(out).sort()).toEqual(["GOPATH", "HOME", "JAVA_HOME", "LANG", "LC_ALL", "NODE_ENV", "PATH", "TERM", "VIRTUAL_ENV"]);
    expect(removed).toEqual([
      "ANTHROPIC_API_KEY",
      "AWS_ACCESS_KEY_ID",
      "DB_PASSWORD",
      "DISPLAY",
      "GH_TOKEN",
      "GITHUB_TOKEN",
      "LD_PRELOAD",
      "NODE_OPTIONS",
      "NPM_TOKEN",
      "OPENAI_API_KEY",
      "SSH_AUTH_SOCK",
      "UNKNOWN_TOOL_SETTING",
      "VSCODE_GIT_ASKPASS_MAIN",
    ]);
  });

  it("drops the secrets the old name filter missed", () => {
    const leaky = {
      PGPASSWORD: "pg",
      MYSQL_PWD: "my",
      DB_PASS: "db",
      TOKEN: "t",
      SECRET: "s",
      CREDENTIALS: "c",
      GITHUB_PAT: "p",
      STRIPE_SK: "sk_live",
      SENTRY_DSN: "https://k@sentry.io/1",
      SLACK_WEBHOOK_URL: "https://hooks.slack.com/x",
      OP_SESSION_my: "op",
      BW_SESSION: "bw",
      REDIS_URL: "redis://:pw@h:6379",
      MONGO_URI: "mongodb://u:p@h/db",
      API_KEY: "k",
      PRIVATE_KEY: "k",
    };
    const { env: out, removed } = filterEnv({ PATH: "/bin", ...leaky });
    expect(out).toEqual({ PATH: "/bin" });
    expect(removed.sort()).toEqual(Object.keys(leaky).sort());
  });

  it("drops an allowlisted variable whose value carries a password", () => {
    const { env: out, removed } = filterEnv({
      HTTPS_PROXY: "http://alice:s3cret@proxy:3128",
      HTTP_PROXY: "http://proxy:3128",
      http_proxy: "alice:s3cret@proxy:3128",
      GOPROXY: "https://ghp_token@goproxy.corp,direct",
      NO_PROXY: "localhost,127.0.0.1",
    });
    expect(out).toEqual({ HTTP_PROXY: "http://proxy:3128", NO_PROXY: "localhost,127.0.0.1" });
    expect(removed).toEqual(["GOPROXY", "HTTPS_PROXY", "http_proxy"]);
  });

  it("passes what the user names, exactly or by a * pattern, whatever it is", () => {
    const { env: out, removed } = filterEnv(env, { allow: ["NPM_TOKEN", "aws_*", "UNKNOWN_TOOL_SETTING"] });
    expect(out.NPM_TOKEN).toBe("n");
    expect(out.AWS_ACCESS_KEY_ID).toBe("A");
    expect(out.UNKNOWN_TOOL_SETTING).toBe("x");
    expect(removed).not.toContain("NPM_TOKEN");
    expect(out.GITHUB_TOKEN).toBeUndefined();
  });

  it("sets the values the user gives, over the inherited ones, without listing them as removed", () => {
    const { env: out, removed } = filterEnv({ PATH: "/bin", NODE_OPTIONS: "--require x" }, { set: { NODE_OPTIONS: "--max-old-space-size=4096", FOO: "1" } });
    expect(out).toEqual({ PATH: "/bin", NODE_OPTIONS: "--max-old-space-size=4096", FOO: "1" });
    expect(removed).toEqual([]);
  });

  it("never passes POSIXLY_CORRECT, even when the user allows or sets it (the gate reads GNU option order; issue 18, session 20)", () => {
    const inherited = filterEnv({ PATH: "/usr/bin", POSIXLY_CORRECT: "1" }, { allow: ["*"] });
    expect(inherited.env).toEqual({ PATH: "/usr/bin" });
    expect(inherited.removed).toEqual(["POSIXLY_CORRECT"]);
    const set = filterEnv({ PATH: "/usr/bin" }, { allow: ["POSIXLY_*"], set: { POSIXLY_CORRECT: "y", FOO: "1" } });
    expect(set.env).toEqual({ PATH: "/usr/bin", FOO: "1" });
    expect(set.removed).toEqual(["POSIXLY_CORRECT"]);
  });

  it("does not treat an allowed name as a prefix", () => {
    const { env: out } = filterEnv({ GH_TOKEN: "a", GH_TOKEN_2: "b", PATHX: "c" }, { allow: ["GH_TOKEN"] });
    expect(out).toEqual({ GH_TOKEN: "a" });
  });

  it("keeps the old entry point working (scrubEnv = filterEnv with allow)", () => {
    expect(scrubEnv({ PATH: "/bin", NPM_TOKEN: "n" }, ["NPM_TOKEN"]).env).toEqual({ PATH: "/bin", NPM_TOKEN: "n" });
  });
});

describe("names and values", () => {
  it("matches names case-insensitively", () => {
    expect(isSecretEnvName("openai_api_key")).toBe(true);
    expect(isSecretEnvName("Github_Token")).toBe(true);
    expect(isSecretEnvName("KEYBOARD")).toBe(false);
    expect(isSecretEnvName("PATH")).toBe(false);
    expect(isAllowedEnvName("lc_messages")).toBe(true);
    expect(isAllowedEnvName("LC_SECRET")).toBe(false);
  });

  it("finds credentials in URLs and proxy values, not in ordinary paths and addresses", () => {
    for (const v of ["https://u:p@h", "postgres://u:p@db/x", "https://TOKEN@github.com/o/r", "u:p@proxy:8080", "a,https://x:y@h"]) expect(valueHasCredential(v)).toBe(true);
    for (const v of ["/usr/bin:/bin", "https://proxy.golang.org,direct", "me@example.com", "C.UTF-8", "http://localhost:3128", "git@github.com:o/r.git"]) {
      expect(valueHasCredential(v)).toBe(false);
    }
  });
});
