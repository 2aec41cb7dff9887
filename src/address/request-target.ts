/** Where a remote server's requests go and with which headers: for its link and for a login's first request. */
import type { RemoteServerConfig } from "../config/index.ts";
import { serverUrlOf } from "./server-url.ts";

/**
 * The URL without its user:password, which becomes a Basic Authorization header unless the config
 * gives one: Deno's fetch would send it so and Bun's would drop it, and browsers refuse such URLs.
 */
export function requestTarget(config: RemoteServerConfig): { url: URL; headers: Record<string, string>; basic?: string } {
  const url = new URL(serverUrlOf(config));
  const written = new URL(config.url);
  if (written.username === "" && written.password === "") return { url, headers: config.headers };
  const credentials = `${decodeURIComponent(written.username)}:${decodeURIComponent(written.password)}`;
  const basic = btoa(String.fromCharCode(...new TextEncoder().encode(credentials)));
  const given = authorizationKey(config) !== undefined;
  return { url, headers: given ? config.headers : { Authorization: `Basic ${basic}`, ...config.headers }, basic };
}

/** The key of `headers` that holds an Authorization header, as written (`Authorization`, `authorization`…). */
export function authorizationKey(config: RemoteServerConfig): string | undefined {
  return Object.keys(config.headers).find((name) => name.toLowerCase() === "authorization");
}

/**
 * Where the credentials the configuration sends come from, in words, or undefined: a server given
 * them is never sent down the OAuth path, and its 401 says which credentials it refused.
 */
export function configuredCredentials(config: RemoteServerConfig): string | undefined {
  const key = authorizationKey(config);
  if (key !== undefined) return `the token in headers.${key}`;
  const written = new URL(config.url);
  return written.username === "" && written.password === "" ? undefined : "the user and password in the url";
}
