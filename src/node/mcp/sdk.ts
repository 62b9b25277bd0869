/**
 * Everything the MCP hub takes from the MCP SDK, in one module: built as its own bundle
 * (dist/mcp-sdk.js) and loaded by `loadMcpSdk()` when the first server starts, so a session
 * without MCP servers never compiles or runs the SDK (and its JSON-schema validator).
 */
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
// The SDK's minimal environment for a stdio server (HOME, LOGNAME, PATH, SHELL, TERM, USER; its
// Windows list there): the hub starts servers with this plus what their definition names.
export { DEFAULT_INHERITED_ENV_VARS } from "@modelcontextprotocol/sdk/client/stdio.js";
export { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
export { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
// URL elicitation required (-32042, MCP 2025-11-25): a call answered with URLs for the user to
// open first, and the server's word that one was completed (notifications/elicitation/complete).
export { ElicitationCompleteNotificationSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
// A server's log messages (notifications/message): kept per server, passed to the host's log.
export { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
// Resource subscriptions: a subscribed resource's change (notifications/resources/updated).
export { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
// StreamableHTTPError: its `code` is the HTTP status (404 to a request with a session id: the server ended the session).
export { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
export { GroupStdioTransport } from "./stdio-transport";
// A remote server's responses bounded as a stdio server's lines are (the transports' `fetch`).
export { limitedFetch } from "./http-limit";
// OAuth for remote servers: the transports call the SDK's auth() on a 401 and throw this when the
// user must sign in (src/node/mcp/oauth.ts keeps the tokens and receives the browser's answer).
export { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
export { callToolAsTask, ClientTaskStore, TaskTakenError } from "./task-call";
// `oauth.authServerMetadataUrl`: the metadata document read there is checked with the SDK's own schemas.
export { OAuthMetadataSchema, OpenIdProviderDiscoveryMetadataSchema } from "@modelcontextprotocol/sdk/shared/auth.js";
