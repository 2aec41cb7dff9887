/**
 * The store's URL (`"serve": {"store": ...}`, `--store`): `redis://[user[:password]@]host[:port][/db]`,
 * `rediss://` over TLS, `valkey://` and `valkeys://` the same for Valkey. Parsed by hand rather than
 * by URL, which keeps a non-web scheme's host opaque: the last `@` ends the credentials (a password
 * may hold `@`, `/` or `:` as they are, or percent-encoded). Errors never repeat the password.
 */
import type { RedisAddress } from "../platform/types.ts";

export class StoreUrlError extends Error {
  override name = "StoreUrlError";
}

export interface StoreUrl {
  address: RedisAddress;
  /** The URL without its password: what messages and logs call the store. */
  name: string;
}

const SCHEMES: Record<string, boolean> = { redis: false, rediss: true, valkey: false, valkeys: true };
const DEFAULT_PORT = 6379;

export function parseStoreUrl(url: string): StoreUrl {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1];
  if (scheme === undefined || !(scheme.toLowerCase() in SCHEMES)) {
    const expected = "'redis://', 'rediss://', 'valkey://' or 'valkeys://'";
    throw new StoreUrlError(`Invalid store URL: expected ${expected}, received '${schemeOf(url)}'`);
  }
  const lower = scheme.toLowerCase();
  const rest = url.slice(scheme.length + 3);
  const at = rest.lastIndexOf("@");
  const credentials = at < 0 ? undefined : rest.slice(0, at);
  const { host, port, database } = location(at < 0 ? rest : rest.slice(at + 1));
  const { username, password } = credentials === undefined ? {} : userAndPassword(credentials);
  const address: RedisAddress = { host, port, tls: SCHEMES[lower], database };
  if (username !== undefined) address.username = username;
  if (password !== undefined) address.password = password;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  const name = `${lower}://${username === undefined ? "" : `${encodeURIComponent(username)}@`}${shownHost}:${port}` +
    (database === 0 ? "" : `/${database}`);
  return { address, name };
}

/** What stands where the scheme should, for the message: never the rest (it may hold a password). */
function schemeOf(url: string): string {
  const end = url.indexOf("://");
  return end < 0 ? (url.length > 12 || url.includes("@") ? "(no scheme)" : url) : url.slice(0, end + 3);
}

/** host[:port][/db], the host an IPv6 address in brackets. */
function location(text: string): { host: string; port: number; database: number } {
  const slash = text.indexOf("/");
  const hostPort = slash < 0 ? text : text.slice(0, slash);
  const path = slash < 0 ? "" : text.slice(slash + 1);
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d*))?$/.exec(hostPort);
  if (match === null) {
    throw new StoreUrlError(hostPort === "" ? "Invalid store URL: no host" : `Invalid store URL: bad host and port '${hostPort}'`);
  }
  const host = match[1].startsWith("[") ? match[1].slice(1, -1) : match[1];
  const port = match[2] === undefined || match[2] === "" ? DEFAULT_PORT : Number(match[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new StoreUrlError(`Invalid store URL: port '${match[2]}' is not between 1 and 65535`);
  }
  if (path !== "" && !/^\d{1,5}$/.test(path)) {
    throw new StoreUrlError(`Invalid store URL: expected a database number after the host, received '/${path}'`);
  }
  return { host, port, database: path === "" ? 0 : Number(path) };
}

/** user[:password], each percent-decoded; an empty user is none (`redis://:password@host`). */
function userAndPassword(text: string): { username?: string; password?: string } {
  const colon = text.indexOf(":");
  const user = decoded(colon < 0 ? text : text.slice(0, colon), "user name");
  const password = colon < 0 ? undefined : decoded(text.slice(colon + 1), "password");
  return { ...(user === "" ? {} : { username: user }), ...(password === undefined ? {} : { password }) };
}

function decoded(text: string, what: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    // The password itself is not shown: only that it is badly escaped.
    throw new StoreUrlError(`Invalid store URL: the ${what} has a '%' that is not followed by two hex digits`);
  }
}
