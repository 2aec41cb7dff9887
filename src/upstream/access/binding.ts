/**
 * The refusal to serve beyond loopback with nobody to tell clients apart: without `serve.clients`
 * or `serve.oauth`, anyone who reaches the address could use every toolbox.
 */
import type { ServeConfig } from "../../config/index.ts";
import { isLoopbackHost } from "../../config/loopback.ts";

/** Whether requests must carry a token: static clients or an authorization server are configured. */
export function tokensRequired(serve: ServeConfig | undefined): boolean {
  return serve !== undefined && (Object.keys(serve.clients).length > 0 || serve.oauth !== undefined);
}

/** Why serving on `host` is refused (exit 2 at start), or undefined when it may go on. */
export function bindingRefusal(host: string, serve: ServeConfig | undefined): string | undefined {
  if (isLoopbackHost(host) || tokensRequired(serve)) return undefined;
  return `Cannot serve on '${host}' over HTTP without tokens: anyone who reaches it could use every toolbox; ` +
    `give each client a token in the configuration, e.g. "serve": {"clients": {"ci": {"token": "\${CI_TOKEN}", "toolboxes": ["*"]}}}, ` +
    `or set "serve": {"oauth": {"issuer", "jwksUri", "audience"}}, or serve on 127.0.0.1`;
}
