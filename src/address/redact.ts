/**
 * What the user wrote as a secret for a server, kept out of every message about it: for a remote
 * server header values, the user:password part of the URL, query-string values and OAuth client
 * secrets; for a stdio server its `env` values. Every error, `_errors` entry and log line about a
 * server, and every stderr line it writes, goes through `redact`; every message it sends through
 * mask-message.ts.
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
  /** The secrets and, where it differs, each as JSON writes it in a string (quotes, backslashes, controls escaped). */
  #inJson?: string[];

  constructor(secrets: Iterable<string>, minLength = MIN_SECRET_LENGTH) {
    const unique = new Set([...secrets].filter((secret) => secret.length >= minLength));
    this.#secrets = [...unique].sort((a, b) => b.length - a.length);
  }

  /** True when there is nothing to mask: masking is then a test of this flag and nothing more. */
  get empty(): boolean {
    return this.#secrets.length === 0;
  }

  /** The secrets as they may stand in JSON text: as written, and as JSON escapes them inside a string. */
  get inJson(): readonly string[] {
    return this.#inJson ??= longestFirst([...this.#secrets, ...this.#secrets.map((secret) => JSON.stringify(secret).slice(1, -1))]);
  }

  /** JSON text with every secret masked, as written or as JSON escapes it inside a string. */
  redactJson(text: string): string {
    return maskAll(text, this.inJson);
  }

  static forServer(config: RemoteServerConfig): Redactor {
    return new Redactor(secretsOf(config));
  }

  /**
   * For what a remote server sends (mask-message.ts), narrower than forServer, as forEnvMessages
   * is: its headers and query values named like secrets (Authorization, X-Api-Key, ?token=) or
   * that look generated, its URL's password and its OAuth client secret; not an `Accept` header or
   * a `?format=json`, which would mask every "json" it says.
   */
  static forServerMessages(config: RemoteServerConfig): Redactor {
    return new Redactor(secretsOf(config, true));
  }

  /** For a stdio server: the values of its configured `env` (what a crash message may print). */
  static forEnv(env: Record<string, string>): Redactor {
    return new Redactor(Object.values(env), MIN_ENV_SECRET_LENGTH);
  }

  /**
   * For what a stdio server sends (mask-message.ts), narrower than forEnv: every word of a result
   * that equals a setting ("production", the folder in ALLOWED_DIR) would be masked. The values of
   * names that say secret (API_KEY, GITHUB_TOKEN, DB_PASSWORD...), values that look generated (a
   * run of 20 or more letters and digits mixing both), and the password of a URL value.
   */
  static forEnvMessages(env: Record<string, string>): Redactor {
    const secrets: string[] = [];
    for (const [name, value] of Object.entries(env)) {
      if (SECRET_NAME.test(name) || looksGenerated(value)) secrets.push(value);
      else if (value.includes("://")) secrets.push(...urlPassword(value));
    }
    return new Redactor(secrets, MIN_ENV_SECRET_LENGTH);
  }

  /** The text with every secret replaced by `***`. */
  redact(text: string): string {
    return maskAll(text, this.#secrets);
  }

  /** One redactor that masks what each of these masks. */
  static combine(redactors: Iterable<Redactor>): Redactor {
    const all = new Redactor([]);
    all.#secrets.push(...new Set([...redactors].flatMap((redactor) => redactor.#secrets)));
    all.#secrets.sort((a, b) => b.length - a.length);
    return all;
  }

  /** A new redactor that also masks these values (tokens obtained at run time). */
  with(secrets: Iterable<string>): Redactor {
    return new Redactor([...this.#secrets, ...secrets]);
  }
}

/** Names of variables that hold secrets; "author" and the like excepted. */
const SECRET_NAME = /key|token|secret|passw(?:or)?d|passphrase|credential|bearer|cookie|authoriz|auth(?!or)/i;
const RANDOM_RUN = /[A-Za-z0-9]{20,}/g;

function looksGenerated(value: string): boolean {
  return [...value.matchAll(RANDOM_RUN)].some(([run]) => /\d/.test(run) && /[A-Za-z]/.test(run));
}

function urlPassword(value: string): string[] {
  try {
    const { password } = new URL(value);
    return password ? [...raw(password)] : [];
  } catch {
    return [];
  }
}

/** Looked for before it is replaced: a text without the secret is given back as it is, unallocated. */
function maskAll(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) if (result.includes(secret)) result = result.split(secret).join(MASK);
  return result;
}

function longestFirst(secrets: string[]): string[] {
  return [...new Set(secrets)].sort((a, b) => b.length - a.length);
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

/**
 * A remote server's secrets. `narrow`: for what the server sends, only the headers and query
 * values named like secrets or that look generated, and the URL's password without its user name.
 */
function* secretsOf(config: RemoteServerConfig, narrow = false): Generator<string> {
  const picked = (name: string, value: string) => !narrow || SECRET_NAME.test(name) || looksGenerated(value);
  for (const [name, value] of Object.entries(config.headers)) {
    if (!picked(name, value)) continue;
    yield value;
    // "Bearer abc": the token alone may show up too (an echo, a server's own error).
    const [, token] = /^\S+\s+(\S.*)$/.exec(value.trim()) ?? [];
    if (token) yield token;
  }
  if (config.oauth?.clientSecret) yield config.oauth.clientSecret;
  if (config.auth?.tokenExchange.clientSecret) yield config.auth.tokenExchange.clientSecret;
  let url: URL;
  try {
    url = new URL(config.url);
  } catch {
    return;
  }
  for (const part of narrow ? [url.password] : [url.username, url.password]) {
    if (part) yield* raw(part);
  }
  for (const [name, value] of url.searchParams) if (picked(name, value)) yield* encodings(value);
  // The raw query values as written, before any decoding.
  for (const pair of url.search.slice(1).split("&")) {
    const value = pair.slice(pair.indexOf("=") + 1);
    if (pair.includes("=") && value && picked(safeDecode(pair.slice(0, pair.indexOf("="))), safeDecode(value))) yield value;
  }
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
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
