/**
 * A remote server's `auth` (issue 49 §4): `tokenExchange` gets each member a token of their own for
 * the server, by exchanging the token the member signed in with (RFC 8693, see
 * auth/token-exchange.ts). It is how the server learns who calls, so it goes with nothing else
 * that gives the server a token (`oauth`, an Authorization header) and never with `"share": "all"`.
 */
import * as v from "valibot";
import { invalidAt } from "./errors.ts";
import type { PathSegment } from "./path.ts";
import { isLoopbackHost } from "./loopback.ts";
import { EXPECTED_STRING, nonEmptyString, strictJsonObject } from "./schema-parts.ts";
import type { TokenExchangeSettings } from "./types.ts";

const tokenExchangeSchema = strictJsonObject({
  tokenEndpoint: nonEmptyString(),
  audience: nonEmptyString(),
  scope: v.optional(nonEmptyString()),
  clientId: nonEmptyString(),
  clientSecret: v.optional(v.string(EXPECTED_STRING)),
}, "expected an object");

export const authSchema = strictJsonObject({ tokenExchange: tokenExchangeSchema }, "expected an object");

type RemoteKeys = { auth?: unknown; oauth?: unknown; headers?: Record<string, string>; share?: string };

/** What is wrong with `auth` beside the server's other keys, or undefined. */
export function authProblem(server: RemoteKeys): string | undefined {
  if (server.auth === undefined) return undefined;
  if (server.oauth !== undefined) return `'tokenExchange' and 'oauth' both get the server a token: use one`;
  const header = Object.keys(server.headers ?? {}).find((name) => name.toLowerCase() === "authorization");
  if (header !== undefined) return `'tokenExchange' gives the server each member's token: headers.${header} cannot be sent beside it`;
  if (server.share === "all") return `'tokenExchange' gets a token per member: "share": "all" would give one connection every member's`;
  return undefined;
}

type Expand = (text: string, path: PathSegment[]) => string;

/** The settings with `${VAR}` expanded; the endpoint gets the member's token, so it is https (or http on loopback). */
export function expandTokenExchange(
  settings: TokenExchangeSettings,
  path: PathSegment[],
  expand: Expand,
  problems: string[],
): TokenExchangeSettings {
  const at = (key: string) => [...path, "auth", "tokenExchange", key];
  const before = problems.length;
  const expanded: TokenExchangeSettings = {
    tokenEndpoint: expand(settings.tokenEndpoint, at("tokenEndpoint")),
    audience: expand(settings.audience, at("audience")),
    clientId: expand(settings.clientId, at("clientId")),
    ...(settings.scope !== undefined && { scope: expand(settings.scope, at("scope")) }),
    ...(settings.clientSecret !== undefined && { clientSecret: expand(settings.clientSecret, at("clientSecret")) }),
  };
  if (problems.length === before && !isTokenEndpoint(expanded.tokenEndpoint)) {
    problems.push(invalidAt(at("tokenEndpoint"), "expected an https URL (http only on loopback) after expanding environment variables"));
  }
  return expanded;
}

function isTokenEndpoint(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname));
  } catch {
    return false;
  }
}
