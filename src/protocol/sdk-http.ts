/**
 * The SDK's web-standard Streamable HTTP server transport, apart from src/protocol/sdk.ts: it is
 * loaded only by `serve --http`, so stdio serving starts as before (see sdk.ts for the pragmas).
 */
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp.d.ts"
export { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
