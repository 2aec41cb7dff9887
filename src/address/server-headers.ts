/**
 * The configured headers go to the MCP server and nowhere else. Given to the SDK transports as
 * `requestInit`, they would also go with every OAuth request (metadata, registration, token
 * refresh), which the SDK sends through the same fetch to the authorization server, often another
 * host: an API key meant for one server must not reach another. So they are added here, only to
 * requests for the server's own origin.
 */
import type { FetchLike } from "../protocol/sdk.ts";

export function withServerHeaders(server: URL, headers: Record<string, string>, inner: FetchLike): FetchLike {
  if (Object.keys(headers).length === 0) return inner;
  return (input, init) => {
    const target = new URL(input instanceof Request ? input.url : String(input));
    if (target.origin !== server.origin) return inner(input, init);

    // As with requestInit before: the configured headers win over the transport's own.
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    return inner(input, { ...init, headers: merged });
  };
}
