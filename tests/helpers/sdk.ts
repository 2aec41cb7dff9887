/** The SDK pieces tests use, including the Node-style stdio transports (tests may use node:*). */
export * from "../../src/protocol/sdk.ts";
// @ts-types="@modelcontextprotocol/sdk/client/stdio.d.ts"
export { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/server/stdio.d.ts"
export { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/server/streamableHttp.d.ts"
export { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/server/sse.d.ts"
export { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
