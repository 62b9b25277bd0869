// The panel shows repository, model and MCP text with the same escapes as the CLI and the
// extension's notifications (src/core/printable.ts): the webview reaches it through the protocol layer.
export { printable, printableParts, type PrintablePart } from "../core/printable";
