/**
 * DNS rebinding: a web page whose name was made to resolve to the workbench's address sends its
 * own Origin. A request with an Origin that is neither loopback nor in `serve.allowedOrigins` is
 * refused; a request without one (an MCP client that is not a browser) passes.
 */
import type { ServeConfig } from "../../config/index.ts";
import { isLoopbackHost } from "../../config/loopback.ts";
import { foreignOrigin } from "./refusals.ts";

/** 403 for a foreign Origin, or undefined when the request may go on. */
export function originRefusal(request: Request, serve: ServeConfig | undefined): Response | undefined {
  const origin = request.headers.get("origin");
  if (origin === null || originAllowed(origin, serve?.allowedOrigins ?? [])) return undefined;
  return foreignOrigin(`Origin '${origin}' is not allowed: only loopback origins and those in serve.allowedOrigins may use the workbench`);
}

function originAllowed(origin: string, allowed: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    // "null" (a sandboxed frame, a file) and anything unparsable.
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  return isLoopbackHost(url.hostname) || allowed.includes(url.origin);
}
