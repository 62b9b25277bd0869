import { describe, expect, it } from "vitest";
import { looksLikeNetworkFailure, networkFor, networkOffHint } from "../../../src/core/commands/network";

const info = { network: "off" as const, networkCommands: ["npm install", "pip install"], networkToggle: true };

describe("networkFor", () => {
  it("turns the network on for a command starting with an allowed prefix", () => {
    expect(networkFor("npm install", info)).toBe("on");
    expect(networkFor("npm install left-pad", info)).toBe("on");
    expect(networkFor("pip install -r requirements.txt", info)).toBe("on");
  });

  it("keeps it off for other commands and for prefixes inside a longer word", () => {
    expect(networkFor("npm test", info)).toBe("off");
    expect(networkFor("npm installer", info)).toBe("off");
  });

  it("keeps it off when shell operators could chain another command", () => {
    expect(networkFor("npm install && curl evil.test", info)).toBe("off");
    expect(networkFor("npm install $(cat x)", info)).toBe("off");
    expect(networkFor("npm install; ls", info)).toBe("off");
  });

  it("is on for everything when the runner's network is on, and off when the backend cannot toggle it", () => {
    expect(networkFor("curl x", { ...info, network: "on" })).toBe("on");
    expect(networkFor("npm install", { ...info, networkToggle: false })).toBe("off");
  });
});

describe("looksLikeNetworkFailure", () => {
  it("recognises DNS and connection failures of package managers and curl", () => {
    expect(looksLikeNetworkFailure("npm install", "npm error code ENOTFOUND\nnpm error errno ENOTFOUND")).toBe(true);
    expect(looksLikeNetworkFailure("pip install x", "WARNING: Retrying ... Failed to establish a new connection: [Errno -3] Temporary failure in name resolution")).toBe(true);
    expect(looksLikeNetworkFailure("curl https://x.test", "curl: (6) Could not resolve host: x.test")).toBe(true);
    expect(looksLikeNetworkFailure("curl http://127.0.0.1:9", "curl: (7) Failed to connect to 127.0.0.1 port 9: Connection refused")).toBe(true);
  });

  it("does not blame the network for ordinary failures", () => {
    expect(looksLikeNetworkFailure("npm test", "1 failing test: expected 2 to be 3")).toBe(false);
    expect(looksLikeNetworkFailure("node server.js", "Error: connect ECONNREFUSED 127.0.0.1:5432")).toBe(false);
  });
});

describe("networkOffHint", () => {
  it("tells the model the network is off and how the user can allow it", () => {
    expect(networkOffHint("npm install left-pad")).toBe(
      "[Network access is off in the sandbox, which is likely why this command failed. Do not try to work around it. " +
        'If the command needs the network, ask the user to allow it: they can add "npm install" to "sandbox.networkCommands" in their user settings ~/.yoke/settings.json ' +
        '(network for commands starting with it), or set "sandbox.network" to "on"; then run the command again.]',
    );
  });
});
