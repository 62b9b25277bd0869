/**
 * Everything the MCP hub takes from the MCP SDK, in one module: built as its own bundle
 * (dist/mcp-sdk.js) and loaded by `loadMcpSdk()` when the first server starts, so a session
 * without MCP servers never compiles or runs the SDK (and its JSON-schema validator).
 */
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
export { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
export { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
export { GroupStdioTransport } from "./stdio-transport";
