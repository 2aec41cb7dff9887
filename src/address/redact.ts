/**
 * What the user wrote as a secret for a server, kept out of every message about it: for a remote
 * server header values, the user:password part of the URL, query-string values and OAuth client
 * secrets; for a stdio server its `env` values. Every error, `_errors` entry and log line about a
 * server, and every stderr line it writes, goes through `redact`.
 */
import type { RemoteServerConfig } from "../config/index.ts";

export const MASK = "***";
/** Shorter values (a header "1", a query "?v=2") would mask common text; they are no secret either. */
const MIN_SECRET_LENGTH = 3;
/**
 * A stdio server's env holds settings as well as keys ("production", "info", a port): only values
 * this long are masked, which every real key or token is.
 */
const MIN_ENV_SECRET_LENGTH = 8;

export class Redactor {
  /** Longest first, so that a value containing another is masked whole. */
  readonly #secrets: string[];

  constructor(secrets: Iterable<string>, minLength = MIN_SECRET_LENGTH) {
    const unique = new Set([...secrets].filter((secret) => secret.length >= minLength));
    this.#secrets = [...unique].sort((a, b) => b.length - a.length);
  }

  static forServer(config: RemoteServerConfig): Redactor {
    return new Redactor(secretsOf(config));
  }

  /** For a stdio server: the values of its configured `env` (what a crash message may print). */
  static forEnv(env: Record<string, string>): Redactor {
    return new Redactor(Object.values(env), MIN_ENV_SECRET_LENGTH);
  }

  /** The text with every secret replaced by `***`. */
  redact(text: string): string {
    let result = text;
    for (const secret of this.#secrets) result = result.split(secret).join(MASK);
    return result;
  }

  /** A new redactor that also masks these values (tokens obtained at run time). */
  with(secrets: Iterable<string>): Redactor {
    return new Redactor([...this.#secrets, ...secrets]);
  }
}

/** The URL as it may be shown: user:password and every query value masked. */
export function displayUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return MASK;
  }
  if (parsed.username) parsed.username = MASK;
  if (parsed.password) parsed.password = MASK;
  const query = [...parsed.searchParams.keys()].map((key) => `${encodeURIComponent(key)}=${MASK}`).join("&");
  // Set by hand: URLSearchParams would percent-encode the mask.
  parsed.search = "";
  return query ? `${parsed.href}?${query}` : parsed.href;
}

function* secretsOf(config: RemoteServerConfig): Generator<string> {
  for (const value of Object.values(config.headers)) {
    yield value;
    // "Bearer abc": the token alone may show up too (an echo, a server's own error).
    const [, token] = /^\S+\s+(\S.*)$/.exec(value.trim()) ?? [];
    if (token) yield token;
  }
  if (config.oauth?.clientSecret) yield config.oauth.clientSecret;
  let url: URL;
  try {
    url = new URL(config.url);
  } catch {
    return;
  }
  for (const part of [url.username, url.password]) {
    if (part) yield* raw(part);
  }
  for (const value of url.searchParams.values()) yield* encodings(value);
  // The raw query values as written, before any decoding.
  for (const pair of url.search.slice(1).split("&")) {
    const value = pair.slice(pair.indexOf("=") + 1);
    if (pair.includes("=") && value) yield value;
  }
}

/** A URL part as written and decoded: either may appear in a message. */
function* raw(part: string): Generator<string> {
  yield part;
  try {
    yield decodeURIComponent(part);
  } catch {
    // Not valid percent-encoding: the raw form is all there is.
  }
}

function* encodings(value: string): Generator<string> {
  yield value;
  yield encodeURIComponent(value);
}
