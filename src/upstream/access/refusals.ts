/**
 * The answers that refuse an HTTP request before it reaches a session: 401 and 403 with the
 * `WWW-Authenticate` challenge the MCP authorization spec asks for (RFC 6750, RFC 9728), and 403
 * for a foreign Origin. Their texts say why, never what token was sent.
 */

/** Where the protected resource metadata of the endpoint `/mcp` is served (RFC 9728, section 3.1). */
export const RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource/mcp";

/** The metadata's URL on the origin the request came to. */
export function resourceMetadataUrl(request: Request): string {
  return `${new URL(request.url).origin}${RESOURCE_METADATA_PATH}`;
}

/**
 * 401: no bearer token (`error` absent), or one that is not valid (`invalid_token`). The challenge
 * names the resource metadata only with `serve.oauth`: without an authorization server there is no
 * login to discover, and a client that sees none asks its user for a bearer token instead.
 */
export function unauthorized(request: Request, description: string, invalid: boolean, oauth: boolean): Response {
  const params = [...(oauth ? [`resource_metadata="${resourceMetadataUrl(request)}"`] : []), ...(invalid ? ['error="invalid_token"'] : [])];
  return challenge(
    401,
    params.length > 0 ? `Bearer ${params.join(", ")}` : "Bearer",
    invalid ? "invalid_token" : "unauthorized",
    description,
  );
}

/** 403: a valid token that grants no toolbox; `scope` names the scopes that would. */
export function insufficientScope(request: Request, scope: string, description: string): Response {
  const header = `Bearer resource_metadata="${resourceMetadataUrl(request)}", error="insufficient_scope", scope="${scope}"`;
  return challenge(403, header, "insufficient_scope", description);
}

/** 403: a valid token that may not be served all the same. */
export function forbidden(description: string): Response {
  return Response.json({ error: "access_denied", error_description: description }, { status: 403 });
}

/** 503: the authorization server's keys could not be fetched; the token may well be good. */
export function keysUnavailable(description: string): Response {
  return Response.json({ error: "temporarily_unavailable", error_description: description }, {
    status: 503,
    headers: { "Retry-After": "5" },
  });
}

/** 403 for a request from a web page on an origin not let in; a JSON-RPC error without an id, as the transport spec allows. */
export function foreignOrigin(message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }, { status: 403 });
}

function challenge(status: number, header: string, error: string, description: string): Response {
  return Response.json({ error, error_description: description }, { status, headers: { "WWW-Authenticate": header } });
}
