/**
 * A login given in a terminal while the workbench runs takes effect on the next request: when the
 * server refuses a token (401, or 403 for a missing scope), the token store is read again and, if
 * it holds another token by now, the request goes again with that one. A 403 insufficient_scope
 * with nothing newer stored ends in the login command that asks for the scopes needed.
 */
import type { FetchLike } from "../protocol/sdk.ts";
import { extractWWWAuthenticateParams } from "../protocol/sdk-remote.ts";

export interface RecheckedLogin {
  /** The access token stored now, read afresh. */
  reread(): Promise<string | undefined>;
  /** The error that says which login gives the scope the server asked for. */
  stepUpRequired(scope: string | undefined): Promise<Error>;
}

/** `server`: the MCP endpoint; a request there without a token (none was stored then) is retried too. */
export function recheckingFetch(server: URL, login: RecheckedLogin, inner: FetchLike): FetchLike {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.status !== 401 && response.status !== 403) return response;
    const sent = bearerOf(init?.headers);
    const target = new URL(input instanceof Request ? input.url : String(input));
    // Requests to the authorization server (metadata, tokens) carry no bearer token and are left alone.
    if (sent === undefined && (target.origin !== server.origin || target.pathname !== server.pathname)) return response;
    const stored = await login.reread();
    if (stored !== undefined && stored !== sent) {
      await response.body?.cancel().catch(() => {});
      const headers = new Headers(init?.headers);
      headers.set("Authorization", `Bearer ${stored}`);
      return inner(input, { ...init, headers });
    }
    if (response.status === 403) {
      const { error, scope } = extractWWWAuthenticateParams(response);
      if (error === "insufficient_scope") {
        await response.body?.cancel().catch(() => {});
        throw await login.stepUpRequired(scope);
      }
    }
    return response;
  };
}

function bearerOf(headers: HeadersInit | undefined): string | undefined {
  const value = new Headers(headers).get("authorization");
  return value?.toLowerCase().startsWith("bearer ") ? value.slice("bearer ".length).trim() : undefined;
}
