// Preloaded (`node -r`) into a server that listens on a fixed port — the MCP SDK's example servers
// listen on 3000/3001 — to move it to a free port and print which, so tests on a shared machine
// neither collide with each other nor with anything else: stderr gets `PORT_ZERO=<port>`.
const net = require("node:net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number") args[0] = 0;
  else if (args[0] && typeof args[0] === "object" && typeof args[0].port === "number") args[0] = { ...args[0], port: 0 };
  this.once("listening", () => process.stderr.write(`PORT_ZERO=${this.address().port}\n`));
  return listen.apply(this, args);
};
