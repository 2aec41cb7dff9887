/**
 * Token exchange (RFC 8693, issue 49 §4): a remote server that says `auth.tokenExchange` gets, for
 * each member, a token of that member's own, got by exchanging the token the member signed in with
 * (a JWT of `serve.oauth`) at the configured token endpoint. The member's token itself never goes
 * to the server (the MCP specification forbids passing it through). An exchanged token is kept per
 * member and settings until shortly before it expires, or until the member comes with another
 * token; a server that refuses it (401) gets one fresh exchange and the request once more.
 */
import type { FetchLike } from "../protocol/sdk.ts";
import type { TokenExchangeSettings } from "../config/index.ts";
import { messageOf } from "../protocol/errors.ts";
import { isObject } from "../protocol/json-object.ts";
import { readBounded } from "../transport/bounded-body.ts";
import type { SubjectTokens } from "./subject-tokens.ts";

const GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN = "urn:ietf:params:oauth:token-type:access_token";
const JWT = "urn:ietf:params:oauth:token-type:jwt";
/** An answer without `expires_in` is kept this long at most: the token may be short-lived. */
const UNKNOWN_LIFETIME_MS = 5 * 60_000;
/** A token is given up this long before it expires (a tenth of its life, when that is shorter). */
const MARGIN_MS = 60_000;
const EXCHANGE_TIMEOUT_MS = 10_000;
/** The token endpoint's answer is read up to this many bytes. */
const MAX_ANSWER_BYTES = 64 * 1024;
/** At most this many members' tokens are kept; past it, the oldest goes. */
const MAX_KEPT = 10_000;

interface Kept {
  subject: string;
  token: string;
  /** Used until then (shortly before it expires). */
  until: number;
}

/** What one member's link to one server asks for each request. */
export interface ExchangedToken {
  /** The member's token for the server: kept, or exchanged now. */
  token(): Promise<string>;
  /** The server refused `token`: the next token() exchanges again. */
  refused(token: string): void;
}

export class TokenExchanges {
  readonly #kept = new Map<string, Kept>();
  readonly #pending = new Map<string, Promise<Kept>>();

  constructor(
    private readonly subjects: SubjectTokens,
    private readonly fetch: FetchLike = globalThis.fetch,
    private readonly now: () => number = Date.now,
  ) {}

  /** The tokens of `member` for a server configured with `settings`, named in errors as `server`. */
  for(member: string, settings: TokenExchangeSettings, server: string): ExchangedToken {
    const key = JSON.stringify([member, settings.tokenEndpoint, settings.audience, settings.scope ?? null, settings.clientId]);
    return {
      token: () => this.#token(key, member, settings, server),
      refused: (token) => {
        if (this.#kept.get(key)?.token === token) this.#kept.delete(key);
      },
    };
  }

  async #token(key: string, member: string, settings: TokenExchangeSettings, server: string): Promise<string> {
    const subject = this.subjects.of(member);
    if (subject === undefined) throw new Error(noSubject(member, server));
    const kept = this.#kept.get(key);
    if (kept && kept.subject === subject && kept.until > this.now()) return kept.token;
    // Requests at the same time wait for one exchange.
    const pendingKey = `${key}\n${subject}`;
    let pending = this.#pending.get(pendingKey);
    if (!pending) {
      pending = this.#exchange(subject, settings, server).finally(() => this.#pending.delete(pendingKey));
      this.#pending.set(pendingKey, pending);
    }
    const got = await pending;
    this.#keep(key, got);
    return got.token;
  }

  #keep(key: string, got: Kept): void {
    this.#kept.delete(key);
    if (this.#kept.size >= MAX_KEPT) {
      const now = this.now();
      for (const [old, { until }] of this.#kept) if (until <= now) this.#kept.delete(old);
      if (this.#kept.size >= MAX_KEPT) this.#kept.delete(this.#kept.keys().next().value!);
    }
    this.#kept.set(key, got);
  }

  async #exchange(subject: string, settings: TokenExchangeSettings, server: string): Promise<Kept> {
    const started = this.now();
    const where = `the token exchange for server '${server}' at '${settings.tokenEndpoint}'`;
    const hidden = (text: string) => hide(text, [subject, settings.clientSecret]);
    let status: number;
    let body: unknown;
    try {
      const response = await this.fetch(settings.tokenEndpoint, exchangeRequest(subject, settings));
      status = response.status;
      body = await readJson(response);
    } catch (error) {
      throw new Error(hidden(`${capitalized(where)} failed: ${messageOf(error)}`));
    }
    if (status !== 200) throw new Error(hidden(`${capitalized(where)} was refused (${status}${refusalOf(body)})`));
    const answer = tokenOf(body);
    if (typeof answer === "string") throw new Error(hidden(`${capitalized(where)} answered no usable token: ${answer}`));
    const life = answer.expiresIn === undefined ? UNKNOWN_LIFETIME_MS : answer.expiresIn * 1000;
    return { subject, token: answer.token, until: started + life - Math.min(MARGIN_MS, life / 10) };
  }
}

/** The POST of RFC 8693 §2.1: the client authenticates with its secret (HTTP Basic, RFC 6749 §2.3.1), or names itself. */
function exchangeRequest(subject: string, settings: TokenExchangeSettings): RequestInit {
  const form = new URLSearchParams({
    grant_type: GRANT,
    subject_token: subject,
    subject_token_type: ACCESS_TOKEN,
    requested_token_type: ACCESS_TOKEN,
    audience: settings.audience,
  });
  if (settings.scope !== undefined) form.set("scope", settings.scope);
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
  if (settings.clientSecret === undefined) form.set("client_id", settings.clientId);
  else {
    const pair = `${encodeURIComponent(settings.clientId)}:${encodeURIComponent(settings.clientSecret)}`;
    headers.authorization = `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode(pair)))}`;
  }
  return { method: "POST", headers, body: form.toString(), signal: AbortSignal.timeout(EXCHANGE_TIMEOUT_MS), redirect: "error" };
}

/** The answer's JSON, read up to MAX_ANSWER_BYTES; undefined when it is none. */
async function readJson(response: Response): Promise<unknown> {
  const bytes = await readBounded(response.body, MAX_ANSWER_BYTES);
  if (bytes === undefined) throw new Error(`its answer is larger than ${MAX_ANSWER_BYTES} bytes, or was cut short`);
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

/** The token of a successful answer (RFC 8693 §2.2.1), or what is wrong with it. */
function tokenOf(body: unknown): { token: string; expiresIn?: number } | string {
  if (!isObject(body)) return "not a JSON object";
  const { access_token: token, token_type: type, expires_in: expiresIn } = body;
  if (typeof token !== "string" || token === "" || token.length > 16_384 || !/^[\x21-\x7e]+$/.test(token)) {
    return "'access_token' is missing or not a token";
  }
  if (typeof type !== "string" || type.toLowerCase() !== "bearer") return `'token_type' is not "Bearer"`;
  // Required by RFC 8693 §2.2.1; some endpoints leave it out, but one that names another kind gave no access token.
  const issued = body.issued_token_type;
  if (issued !== undefined && issued !== ACCESS_TOKEN && issued !== JWT) return `'issued_token_type' is not an access token`;
  const seconds = typeof expiresIn === "number" && Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : undefined;
  return { token, ...(seconds !== undefined && { expiresIn: Math.min(seconds, 86_400) }) };
}

/** An error answer's `error` and `error_description` (RFC 6749 §5.2), bounded. */
function refusalOf(body: unknown): string {
  if (!isObject(body) || typeof body.error !== "string") return "";
  const description = typeof body.error_description === "string" ? `: ${body.error_description}` : "";
  return `, ${`${body.error}${description}`.slice(0, 300)}`;
}

function hide(text: string, values: (string | undefined)[]): string {
  return values.reduce<string>((shown, value) => (value ? shown.replaceAll(value, "***") : shown), text);
}

function capitalized(text: string): string {
  return text[0].toUpperCase() + text.slice(1);
}

/** Why a member has no token to exchange. */
function noSubject(member: string, server: string): string {
  return `Server '${server}' gets each member's token by token exchange (auth.tokenExchange), and client '${member}' ` +
    `has no token to exchange: only a client signed in with a JWT of serve.oauth has one (not a token of serve.clients, ` +
    `nor the local user)`;
}

/**
 * Each request to the server carries the member's token; a 401 to it exchanges once more and
 * sends the request again with the new one.
 */
export function exchangingFetch(exchanged: ExchangedToken, inner: FetchLike, onToken?: (token: string) => void): FetchLike {
  const send = async (input: string | URL, init: RequestInit | undefined) => {
    const token = await exchanged.token();
    onToken?.(token);
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${token}`);
    return { token, response: await inner(input, { ...init, headers }) };
  };
  return async (input, init) => {
    const first = await send(input, init);
    if (first.response.status !== 401) return first.response;
    await first.response.body?.cancel().catch(() => {});
    exchanged.refused(first.token);
    return (await send(input, init)).response;
  };
}
