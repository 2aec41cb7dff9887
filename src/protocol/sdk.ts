/**
 * The MCP SDK, re-exported in one place. Deno resolves these subpaths through deno.json's import
 * map to the SDK's JavaScript files; the @ts-types pragmas point its type checker at the SDK's
 * declarations, which Bun and tsc find on their own.
 */
// @ts-types="@modelcontextprotocol/sdk/types.d.ts"
export * from "@modelcontextprotocol/sdk/types.js";
// @ts-types="@modelcontextprotocol/sdk/server/index.d.ts"
export { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/index.d.ts"
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/shared/transport.d.ts"
export type { FetchLike, Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/validation/ajv-provider.d.ts"
export { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js";
// @ts-types="@modelcontextprotocol/sdk/validation/types.d.ts"
export type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
