import { describe, expect, it } from "vitest";
import { isSecretEnvName, scrubEnv } from "../../../src/core/commands/env";

describe("scrubEnv", () => {
  const env = {
    PATH: "/usr/bin",
    HOME: "/home/u",
    LANG: "C.UTF-8",
    ANTHROPIC_API_KEY: "sk-ant",
    ANTHROPIC_BASE_URL: "https://gw",
    OPENAI_API_KEY: "sk",
    AWS_ACCESS_KEY_ID: "A",
    AWS_PROFILE: "dev",
    AZURE_CLIENT_SECRET: "s",
    GOOGLE_APPLICATION_CREDENTIALS: "/k.json",
    GH_TOKEN: "g",
    GITHUB_TOKEN: "g",
    NPM_TOKEN: "n",
    SSH_AUTH_SOCK: "/tmp/ssh.sock",
    STRIPE_SECRET: "x",
    DB_PASSWORD: "pw",
    MY_SERVICE_KEY: "k",
    SLACK_BOT_TOKEN: "t",
    VSCODE_GIT_ASKPASS_MAIN: "/askpass.js",
    NODE_ENV: "test",
    TERM: "xterm",
  };

  it("removes API keys, tokens, cloud credentials and agent sockets", () => {
    const { env: out, removed } = scrubEnv(env);
    expect(Object.keys(out).sort()).toEqual(["HOME", "LANG", "NODE_ENV", "PATH", "TERM"]);
    expect(removed).toContain("ANTHROPIC_API_KEY");
    expect(removed).toContain("SSH_AUTH_SOCK");
    expect(removed).toContain("VSCODE_GIT_ASKPASS_MAIN");
    expect(removed).toHaveLength(16);
  });

  it("passes a secret through when the user allows it by name", () => {
    const { env: out, removed } = scrubEnv(env, ["NPM_TOKEN", "aws_*"]);
    expect(out.NPM_TOKEN).toBe("n");
    expect(out.AWS_ACCESS_KEY_ID).toBe("A");
    expect(out.AWS_PROFILE).toBe("dev");
    expect(removed).not.toContain("NPM_TOKEN");
    expect(out.GITHUB_TOKEN).toBeUndefined();
  });

  it("does not treat an allowed name as a prefix", () => {
    const { env: out } = scrubEnv({ GH_TOKEN: "a", GH_TOKEN_2: "b" }, ["GH_TOKEN"]);
    expect(out).toEqual({ GH_TOKEN: "a" });
  });

  it("matches names case-insensitively", () => {
    expect(isSecretEnvName("openai_api_key")).toBe(true);
    expect(isSecretEnvName("Github_Token")).toBe(true);
    expect(isSecretEnvName("KEYBOARD")).toBe(false);
    expect(isSecretEnvName("PATH")).toBe(false);
  });
});
