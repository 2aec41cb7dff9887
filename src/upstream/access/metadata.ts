/**
 * The protected resource metadata (RFC 9728) of the endpoint `/mcp`, served at
 * RESOURCE_METADATA_PATH: where a client finds the authorization server to get a token from, and
 * the scope that grants toolboxes. Public, as the challenge of every 401 points to it: so it names
 * no toolbox (the scope `toolbox:*` only; `toolbox:NAME` is the form, see docs/serve-access.md).
 */
import type { ServeConfig } from "../../config/index.ts";
import { ALL_TOOLBOXES_SCOPE } from "./authenticator.ts";

export { RESOURCE_METADATA_PATH } from "./refusals.ts";

/** The document for a GET (or HEAD); 405 for any other method. */
export function protectedResourceMetadata(request: Request, serve: ServeConfig | undefined): Response {
  if (request.method !== "GET" && request.method !== "HEAD") {
    return new Response(null, { status: 405, headers: { Allow: "GET, HEAD" } });
  }
  const document = {
    resource: `${new URL(request.url).origin}/mcp`,
    ...(serve?.oauth && { authorization_servers: [serve.oauth.issuer] }),
    scopes_supported: [ALL_TOOLBOXES_SCOPE],
    bearer_methods_supported: ["header"],
  };
  // Public metadata: a web client on any origin may read it.
  return Response.json(document, { headers: { "Access-Control-Allow-Origin": "*" } });
}
