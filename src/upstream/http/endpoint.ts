/**
 * The workbench over HTTP as one web-standard handler, `(Request) => Promise<Response>`: the
 * endpoint `/mcp` for both revisions. A request is authenticated first (the Authenticate hook),
 * then bounded (a POST's media type, its body's size and time, see body-reads.ts, and the bytes
 * of its client's bodies being answered, body-budget.ts; then requests in flight per client, live
 * sessions), then given to a 2025
 * session (legacy-sessions.ts) or, when it stands alone in 2026-07-28, to the client's hub
 * (modern-hubs.ts). Idle sessions and hubs end after `idleMs`.
 */
import type { Authenticate, ClientIdentity } from "../client-identity.ts";
import { LegacySessions, type OpenSession, sessionNotFound, sessionUnreadable, StoreUnavailable } from "./legacy-sessions.ts";
import { SessionRecords } from "./session-records.ts";
import type { Store } from "../../store/store.ts";
import { ModernHubs } from "./modern-hubs.ts";
import { BodyReads, DEFAULT_BODY_TIMEOUT_MS, DEFAULT_MAX_BODIES_READING } from "./body-reads.ts";
import { BodyBudget, DEFAULT_MAX_WAITING_PER_CLIENT, SMALL_BODY_BYTES } from "./body-budget.ts";
import { INVALID_REQUEST, jsonRpcError, PARSE_ERROR, type Routed, TRANSPORT_ERROR, whenSent } from "./replies.ts";
import { scoped } from "../access/scope.ts";
import { ENDPOINT_PATH, isInitialize, isJson, isModern, scopeOfPath, tooManyBytes, tooManySessions } from "./endpoint-requests.ts";
import { MAX_JSON_DEPTH, mayNestDeeperThan, nestedDeeperThan } from "../../transport/json-depth.ts";

export { ENDPOINT_PATH };

export interface HttpEndpointOptions {
  authenticate: Authenticate;
  open: OpenSession;
  /** A session or hub with nothing in flight for this long ends (default 30 minutes). */
  idleMs?: number;
  /** Live 2025 sessions and 2026 hubs together (default 1,000). */
  maxSessions?: number;
  /** Live sessions and hubs of one client (default 256): no client takes every slot. */
  maxSessionsPerClient?: number;
  /** A request body longer than this gets 413 (default 4 MiB). */
  maxBodyBytes?: number;
  /** Requests of one client being answered at once, streams included (default 256); a body still being read is not one. */
  maxInFlightPerClient?: number;
  /** A request body not arrived whole within this time gets 408 (default 30 s). */
  bodyTimeoutMs?: number;
  /** Request bodies read at once, all clients together (default 64); one more and the oldest of the client with most gives way. */
  maxBodiesReading?: number;
  /** The toolboxes configured now: a path scope naming another is answered 404. */
  toolboxes?: () => readonly string[];
  /** Bytes of one client's request bodies being answered; past it, bodies wait (default 16 MiB, body-budget.ts). */
  maxBodyBytesInFlight?: number;
  /** Requests of one client waiting for that (default 128); past it, 503 at once. */
  maxBodiesWaitingPerClient?: number;
  /** A request that failed in the workbench (its client gets a plain 500). */
  onError?: (error: Error) => void;
  /** Where 2025 sessions' records are kept, for any replica to serve them (see session-records.ts); none: this process alone. */
  store?: Store;
}

export const DEFAULT_IDLE_MS = 30 * 60_000;
export const DEFAULT_MAX_SESSIONS = 1_000;
export const DEFAULT_MAX_SESSIONS_PER_CLIENT = 256;
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
export const DEFAULT_MAX_IN_FLIGHT_PER_CLIENT = 256;

export interface HttpEndpoint {
  handle(request: Request): Promise<Response>;
  /** Live 2025 sessions and 2026 hubs. */
  readonly sessions: number;
  /** Stops taking requests (503), and waits up to `graceMs` for the POSTs being answered. */
  drain(graceMs: number): Promise<number>;
  /** Ends at once the sessions and hubs of the clients `revoked` names; how many. */
  endClients(revoked: (name: string) => boolean): Promise<number>;
  /** Ends every session and hub. */
  close(): Promise<void>;
}

export function httpEndpoint(options: HttpEndpointOptions): HttpEndpoint {
  return new Endpoint(options);
}

/** A POST's body, parsed, and what it holds of its client's bytes in flight (given back once answered). */
type Body = { body: unknown; held?: () => void };

class Endpoint implements HttpEndpoint {
  readonly #options: HttpEndpointOptions;
  readonly #maxBody: number;
  readonly #maxWaiting: number;
  readonly #bodies: BodyReads;
  readonly #budget: BodyBudget;
  readonly #legacy: LegacySessions;
  readonly #modern: ModernHubs;
  /** Requests being answered, per client. */
  readonly #inFlight = new Map<string, number>();
  /** POSTs being answered (a listen aside): what a stop waits for. */
  #posts = 0;
  #draining = false;
  readonly #sweep: ReturnType<typeof setInterval>;

  constructor(options: HttpEndpointOptions) {
    this.#options = options;
    const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    this.#maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.#bodies = new BodyReads(options.maxBodiesReading ?? DEFAULT_MAX_BODIES_READING, options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS);
    this.#maxWaiting = options.maxBodiesWaitingPerClient ?? DEFAULT_MAX_WAITING_PER_CLIENT;
    this.#budget = new BodyBudget({ max: options.maxBodyBytesInFlight, maxWaitingPerClient: this.#maxWaiting });
    this.#legacy = new LegacySessions(options.open, options.store && new SessionRecords(options.store, idleMs));
    this.#modern = new ModernHubs(options.open, options.store);
    this.#sweep = setInterval(() => {
      const before = Date.now() - idleMs;
      const failed = (error: unknown) => options.onError?.(error instanceof Error ? error : new Error(String(error)));
      this.#legacy.expire(before).catch(failed);
      this.#modern.expire(before).catch(failed);
    }, Math.min(60_000, Math.max(10, idleMs / 4)));
  }

  get sessions(): number {
    return this.#legacy.size + this.#modern.size;
  }

  /** Authenticated, scoped, bounded, then routed to a 2025 session or a 2026 hub (bound: handed to a listener as it is). */
  readonly handle = (request: Request): Promise<Response> => this.#handle(request);

  async #handle(request: Request): Promise<Response> {
    const who = await this.#admit(request);
    if (who instanceof Response) return who;
    let body: Body = { body: undefined };
    if (request.method === "POST") {
      const read = await this.#readBody(request, who);
      if (read instanceof Response) return read;
      body = read;
    }
    const held = this.#inFlight.get(who.name) ?? 0;
    const maxInFlight = this.#options.maxInFlightPerClient ?? DEFAULT_MAX_IN_FLIGHT_PER_CLIENT;
    if (held >= maxInFlight) {
      body.held?.();
      return jsonRpcError(429, TRANSPORT_ERROR, `Too many requests: client ${JSON.stringify(who.name)} has ${held} in flight, the ` +
        `most allowed: wait for an answer`, {
        "Retry-After": "1",
      });
    }
    return await this.#answer(request, who, body);
  }

  /** Who may make this request, within which scope; or the refusal. */
  async #admit(request: Request): Promise<ClientIdentity | Response> {
    const url = new URL(request.url);
    const scope = scopeOfPath(url.pathname);
    if (scope === null) {
      return jsonRpcError(404, TRANSPORT_ERROR, `Not found: ${JSON.stringify(url.pathname.slice(0, 200))}: the MCP endpoint is ` +
        `${ENDPOINT_PATH}, or ${ENDPOINT_PATH}/<toolbox>[,<toolbox>…]`);
    }
    if (!["POST", "GET", "DELETE"].includes(request.method)) {
      const message = `Method not allowed: ${request.method}: use POST, GET or DELETE`;
      return jsonRpcError(405, TRANSPORT_ERROR, message, { Allow: "POST, GET, DELETE" });
    }
    if (this.#draining) return jsonRpcError(503, TRANSPORT_ERROR, "Service unavailable: the workbench is stopping", { "Retry-After": "1" });
    const granted = await this.#options.authenticate(request);
    if (granted instanceof Response) return granted;
    // A path scope narrows the grants, never widens them: a toolbox outside them is one that does not exist.
    const who = scoped(granted, scope);
    const configured = (name: string) => (this.#options.toolboxes?.() ?? [name]).includes(name);
    const allowed = (name: string) => who.toolboxes !== "*" && who.toolboxes.includes(name);
    const missing = scope === undefined ? [] : scope.filter((name) => !allowed(name) || !configured(name));
    if (missing.length > 0) return jsonRpcError(404, TRANSPORT_ERROR, `Not found: toolbox ` +
      `${JSON.stringify(missing[0].slice(0, 200))} is not in the configuration`);
    return who;
  }

  /**
   * A POST's body, read before it counts as in flight: a connection that stalls its body holds no
   * call slot. Held at its declared length (else the most a body may have) before it is read: past
   * the client's bound it waits its turn, unread. A small body never waits: bodies that stall can
   * then hold up only the client's large ones, never lock it out (without tokens every local
   * process is the one client "local").
   */
  async #readBody(request: Request, who: ClientIdentity): Promise<Body | Response> {
    // What a web page can send without a preflight (text/plain, forms) is never a request: 415, as the 2025 transport answers.
    if (!isJson(request.headers.get("content-type"))) {
      return jsonRpcError(415, TRANSPORT_ERROR, "Unsupported Media Type: Content-Type must be application/json");
    }
    const declared = Number(request.headers.get("content-length") ?? Number.NaN);
    const reserved = declared >= 0 && declared <= SMALL_BODY_BYTES
      ? this.#budget.hold(who.name, declared)
      : await this.#budget.enter(who.name, declared >= 0 && declared <= this.#maxBody ? declared : this.#maxBody, request.signal);
    if (typeof reserved === "string") return tooManyBytes(who, reserved, this.#maxWaiting);
    let text: string | Response;
    try {
      text = await this.#bodies.read(request, who.name, this.#maxBody);
    } catch (error) {
      reserved();
      return this.#failed(error);
    }
    if (text instanceof Response) return (reserved(), text);
    // Held at its real length from here, until the answer is sent.
    const held = this.#budget.hold(who.name, text.length);
    reserved();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      held();
      // Not the parser's message: it may quote the body, and a body may hold secrets.
      return jsonRpcError(400, PARSE_ERROR, "Parse error: the request body is not valid JSON");
    }
    // As over stdio (transport/json-depth.ts): measured before anything recursive sees it.
    if (mayNestDeeperThan(text.length) && nestedDeeperThan(body)) {
      held();
      return jsonRpcError(400, INVALID_REQUEST, `Invalid Request: nested deeper than ${MAX_JSON_DEPTH} levels`);
    }
    return { body, held };
  }

  /** The request counted in flight until its answer is sent (a listen counts, but is not waited for by a stop). */
  async #answer(request: Request, who: ClientIdentity, body: Body): Promise<Response> {
    this.#inFlight.set(who.name, (this.#inFlight.get(who.name) ?? 0) + 1);
    let call = request.method === "POST";
    if (call) this.#posts++;
    const release = (live?: { inFlight: number }) => () => {
      body.held?.();
      const left = (this.#inFlight.get(who.name) ?? 1) - 1;
      if (left > 0) this.#inFlight.set(who.name, left);
      else this.#inFlight.delete(who.name);
      if (call) this.#posts--;
      if (live) live.inFlight--;
    };
    try {
      const { response, live, lasting } = await this.#route(request, who, body.body);
      if (lasting && call) (call = false, this.#posts--);
      if (live) live.inFlight++;
      return whenSent(response, release(live));
    } catch (error) {
      release()();
      return this.#failed(error);
    }
  }

  #failed(error: unknown): Response {
    this.#options.onError?.(error instanceof Error ? error : new Error(String(error)));
    // Never the error's text: it may name a path or quote a request, and it helps no client.
    return jsonRpcError(500, TRANSPORT_ERROR, "Internal error: the workbench could not answer this request; its log says why");
  }

  async #route(request: Request, who: ClientIdentity, body: unknown): Promise<Routed> {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId !== null) return await this.#routeToSession(sessionId, request, who, body);
    if (request.method === "POST" && isInitialize(body)) {
      const refused = this.#full(who);
      if (refused) return { response: refused };
      return await this.#legacy.initialize(request, body, who);
    }
    if (request.method === "POST" && isModern(request, body)) {
      if (Array.isArray(body)) return { response: jsonRpcError(400, INVALID_REQUEST, "Invalid Request: a 2026-07-28 request stands " +
        "alone, not in a batch") };
      const refused = this.#modern.has(who, body) ? undefined : this.#full(who);
      if (refused) return { response: refused };
      return await this.#modern.handle(request, body, who);
    }
    if (request.method === "GET") {
      return { response: jsonRpcError(405, TRANSPORT_ERROR, "Method not allowed: GET needs an Mcp-Session-Id (2025-11-25); in " +
        "2026-07-28 use subscriptions/listen", { Allow: "POST" }) };
    }
    return { response: jsonRpcError(400, TRANSPORT_ERROR, "Bad Request: Mcp-Session-Id header is required") };
  }

  /** A request of a 2025 session: live here, or restored from the store; a store that fails answers 503. */
  async #routeToSession(sessionId: string, request: Request, who: ClientIdentity, body: unknown): Promise<Routed> {
    let live;
    try {
      live = await this.#legacy.find(sessionId, who);
    } catch (error) {
      if (error instanceof StoreUnavailable) return { response: sessionUnreadable(error) };
      throw error;
    }
    if (!live) return { response: sessionNotFound() };
    return { response: await this.#legacy.handle(live, request, body), live };
  }

  /** Why a new session or hub for `who` is refused, if it is. */
  #full(who: ClientIdentity): Response | undefined {
    const maxSessions = this.#options.maxSessions ?? DEFAULT_MAX_SESSIONS;
    if (this.sessions >= maxSessions) return tooManySessions(maxSessions);
    const owned = this.#legacy.countOf(who.name) + this.#modern.countOf(who.name);
    if (owned < (this.#options.maxSessionsPerClient ?? DEFAULT_MAX_SESSIONS_PER_CLIENT)) return undefined;
    return jsonRpcError(429, TRANSPORT_ERROR, `Too many sessions: client ${JSON.stringify(who.name)} has ${owned} live, the most ` +
      `allowed: end one (DELETE) or try later`, {
      "Retry-After": "5",
    });
  }

  async drain(graceMs: number): Promise<number> {
    this.#draining = true;
    const until = Date.now() + graceMs;
    while (this.#posts > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    return this.#posts;
  }

  async endClients(revoked: (name: string) => boolean): Promise<number> {
    const [sessions, hubs] = await Promise.all([this.#legacy.endClients(revoked), this.#modern.endClients(revoked)]);
    return sessions + hubs;
  }

  async close(): Promise<void> {
    clearInterval(this.#sweep);
    await Promise.all([this.#legacy.closeAll(), this.#modern.closeAll()]);
  }
}
