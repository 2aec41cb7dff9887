/**
 * The protected resource metadata (RFC 9728) of the endpoint `/mcp`, served at
 * RESOURCE_METADATA_PATH: where a client finds the authorization server to get a token from, and
 * the scope that grants toolboxes. Public, as the challenge of every 401 points to it: so it names
 * no toolbox (the scope `toolbox:*` only; `toolbox:NAME` is the form, see docs/serve-access.md).
 * Without `serve.oauth` there is no authorization server and no token to discover: 404, saying to
 * send the bearer token of `serve.clients` (RFC 9728 makes `authorization_servers` optional, but a
 * document without one starts clients on a discovery that cannot end in a login).
 */
import type { ServeConfig } from "../../config/index.ts";
import { ALL_TOOLBOXES_SCOPE } from "./authenticator.ts";

export { RESOURCE_METADATA_PATH } from "./refusals.ts";

/** The document for a GET (or HEAD); 405 for any other method. */
export function protectedResourceMetadata(request: Request, serve: ServeConfig | undefined): Response {
  if (request.method !== "GET" && request.method !== "HEAD") {
    return new Response(null, { status: 405, headers: { Allow: "GET, HEAD" } });
  }
  const cors = { "Access-Control-Allow-Origin": "*" };
  if (!serve?.oauth) {
    const description = "This server has no OAuth login: send 'Authorization: Bearer <token>' with a token of serve.clients";
    return Response.json({ error: "not_found", error_description: description }, { status: 404, headers: cors });
  }
  const document = {
    resource: `${new URL(request.url).origin}/mcp`,
    authorization_servers: [serve.oauth.issuer],
    scopes_supported: [ALL_TOOLBOXES_SCOPE],
    bearer_methods_supported: ["header"],
  };
  // Public metadata: a web client on any origin may read it.
  return Response.json(document, { headers: cors });
}
