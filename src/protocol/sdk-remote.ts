/**
 * The SDK's HTTP client transports and OAuth client, apart from src/protocol/sdk.ts: they are loaded only
 * when a remote server is opened or a login runs, so a workbench of stdio servers starts as fast
 * as before (see src/protocol/sdk.ts for the pragmas).
 */
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp.d.ts"
export { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/client/sse.d.ts"
export { SSEClientTransport, SseError } from "@modelcontextprotocol/sdk/client/sse.js";
// @ts-types="@modelcontextprotocol/sdk/client/auth.d.ts"
export {
  auth,
  extractWWWAuthenticateParams,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  UnauthorizedError,
} from "@modelcontextprotocol/sdk/client/auth.js";
// @ts-types="@modelcontextprotocol/sdk/shared/auth.d.ts"
export type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
// @ts-types="@modelcontextprotocol/sdk/client/auth-extensions.d.ts"
export { createPrivateKeyJwtAuth } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
