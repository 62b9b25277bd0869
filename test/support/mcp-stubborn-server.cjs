// A stdio MCP server that outlives its client: it runs server-everything as its own child and
// ignores the end of its stdin (as servers behind wrappers often do), so a killed client leaves it
// behind as an orphan. Argument 1 is passed on to the child (a tag the tests look for).
const { spawn } = require("node:child_process");
const child = spawn(process.execPath, [require.resolve("@modelcontextprotocol/server-everything/dist/index.js"), "stdio", process.argv[2] || ""], {
  stdio: ["pipe", "pipe", "inherit"],
});
process.stdin.on("data", (d) => child.stdin.write(d));
process.stdin.on("end", () => {});
process.stdout.on("error", () => {});
child.stdout.on("data", (d) => process.stdout.write(d));
process.on("SIGHUP", () => {});
setInterval(() => {}, 1 << 30);
