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
import { DISCOVER_METHOD, MODERN_VERSION, claimedVersion } from "../../protocol/wire.ts";
import { LegacySessions, type OpenSession, sessionNotFound } from "./legacy-sessions.ts";
import { ModernHubs } from "./modern-hubs.ts";
import { BodyReads, DEFAULT_BODY_TIMEOUT_MS, DEFAULT_MAX_BODIES_READING } from "./body-reads.ts";
import { BODY_WAIT_MS, BodyBudget, DEFAULT_MAX_WAITING, DEFAULT_MAX_WAITING_PER_CLIENT, SMALL_BODY_BYTES } from "./body-budget.ts";
import { INVALID_REQUEST, jsonRpcError, PARSE_ERROR, type Routed, TRANSPORT_ERROR, whenSent } from "./replies.ts";
import { parseScope, scoped } from "../access/scope.ts";
import { MAX_JSON_DEPTH, mayNestDeeperThan, nestedDeeperThan } from "../../transport/json-depth.ts";

export const ENDPOINT_PATH = "/mcp";

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
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const maxPerClient = options.maxSessionsPerClient ?? DEFAULT_MAX_SESSIONS_PER_CLIENT;
  /** Why a new session or hub for `who` is refused, if it is. */
  const full = (who: ClientIdentity): Response | undefined => {
    if (legacy.size + modern.size >= maxSessions) return tooManySessions(maxSessions);
    const owned = legacy.countOf(who.name) + modern.countOf(who.name);
    if (owned < maxPerClient) return undefined;
    return jsonRpcError(429, TRANSPORT_ERROR, `Too many sessions: client ${JSON.stringify(who.name)} has ${owned} live, the most allowed: end one (DELETE) or try later`, {
      "Retry-After": "5",
    });
  };
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxInFlight = options.maxInFlightPerClient ?? DEFAULT_MAX_IN_FLIGHT_PER_CLIENT;
  const bodies = new BodyReads(options.maxBodiesReading ?? DEFAULT_MAX_BODIES_READING, options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS);
  const maxWaiting = options.maxBodiesWaitingPerClient ?? DEFAULT_MAX_WAITING_PER_CLIENT;
  const budget = new BodyBudget({ max: options.maxBodyBytesInFlight, maxWaitingPerClient: maxWaiting });
  const legacy = new LegacySessions(options.open);
  const modern = new ModernHubs(options.open);
  const inFlight = new Map<string, number>();
  let posts = 0;
  let draining = false;
  const sweep = setInterval(() => {
    const before = Date.now() - idleMs;
    const failed = (error: unknown) => options.onError?.(error instanceof Error ? error : new Error(String(error)));
    legacy.expire(before).catch(failed);
    modern.expire(before).catch(failed);
  }, Math.min(60_000, Math.max(10, idleMs / 4)));

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const scope = scopeOfPath(url.pathname);
    if (scope === null) {
      return jsonRpcError(404, TRANSPORT_ERROR, `Not found: ${JSON.stringify(url.pathname.slice(0, 200))}: the MCP endpoint is ${ENDPOINT_PATH}, or ${ENDPOINT_PATH}/<toolbox>[,<toolbox>…]`);
    }
    if (!["POST", "GET", "DELETE"].includes(request.method)) {
      return jsonRpcError(405, TRANSPORT_ERROR, `Method not allowed: ${request.method}: use POST, GET or DELETE`, { Allow: "POST, GET, DELETE" });
    }
    if (draining) return jsonRpcError(503, TRANSPORT_ERROR, "Service unavailable: the workbench is stopping", { "Retry-After": "1" });
    const granted = await options.authenticate(request);
    if (granted instanceof Response) return granted;
    // A path scope narrows the grants, never widens them: a toolbox outside them is one that does not exist.
    const who = scoped(granted, scope);
    const missing = scope === undefined ? [] : scope.filter((name) => who.toolboxes === "*" || !who.toolboxes.includes(name) || !(options.toolboxes?.() ?? [name]).includes(name));
    if (missing.length > 0) return jsonRpcError(404, TRANSPORT_ERROR, `Not found: toolbox ${JSON.stringify(missing[0].slice(0, 200))} is not in the configuration`);
    let body: unknown;
    // What the request's body holds (body-budget.ts), given back once the answer is sent.
    let bodyHeld: (() => void) | undefined;
    if (request.method === "POST") {
      // What a web page can send without a preflight (text/plain, forms) is never a request: 415, as the 2025 transport answers.
      if (!isJson(request.headers.get("content-type"))) {
        return jsonRpcError(415, TRANSPORT_ERROR, "Unsupported Media Type: Content-Type must be application/json");
      }
      // Read before it counts as in flight: a connection that stalls its body holds no call slot.
      // Held at its declared length (else the most a body may have) before it is read: past the
      // client's bound it waits its turn, unread. A small body never waits: bodies that stall can
      // then hold up only the client's large ones, never lock it out (without tokens every local
      // process is the one client "local").
      const declared = Number(request.headers.get("content-length") ?? Number.NaN);
      const reserved = declared >= 0 && declared <= SMALL_BODY_BYTES
        ? budget.hold(who.name, declared)
        : await budget.enter(who.name, declared >= 0 && declared <= maxBody ? declared : maxBody, request.signal);
      if (typeof reserved === "string") return tooManyBytes(who, reserved, maxWaiting);
      let text: string | Response;
      try {
        text = await bodies.read(request, who.name, maxBody);
      } catch (error) {
        reserved();
        return failed(error);
      }
      if (text instanceof Response) return (reserved(), text);
      // Held at its real length from here, until the answer is sent.
      bodyHeld = budget.hold(who.name, text.length);
      reserved();
      try {
        body = JSON.parse(text);
      } catch {
        bodyHeld();
        // Not the parser's message: it may quote the body, and a body may hold secrets.
        return jsonRpcError(400, PARSE_ERROR, "Parse error: the request body is not valid JSON");
      }
      // As over stdio (transport/json-depth.ts): measured before anything recursive sees it.
      if (mayNestDeeperThan(text.length) && nestedDeeperThan(body)) {
        bodyHeld();
        return jsonRpcError(400, INVALID_REQUEST, `Invalid Request: nested deeper than ${MAX_JSON_DEPTH} levels`);
      }
    }
    const held = inFlight.get(who.name) ?? 0;
    if (held >= maxInFlight) {
      bodyHeld?.();
      return jsonRpcError(429, TRANSPORT_ERROR, `Too many requests: client ${JSON.stringify(who.name)} has ${held} in flight, the most allowed: wait for an answer`, {
        "Retry-After": "1",
      });
    }
    inFlight.set(who.name, held + 1);
    // A POST is a call the stop waits for, unless it is a listen, which lasts until the client leaves.
    let call = request.method === "POST";
    if (call) posts++;
    const release = (live?: { inFlight: number }) => () => {
      bodyHeld?.();
      const left = (inFlight.get(who.name) ?? 1) - 1;
      if (left > 0) inFlight.set(who.name, left);
      else inFlight.delete(who.name);
      if (call) posts--;
      if (live) live.inFlight--;
    };
    try {
      const { response, live, lasting } = await route(request, who, body);
      if (lasting && call) (call = false, posts--);
      if (live) live.inFlight++;
      return whenSent(response, release(live));
    } catch (error) {
      release()();
      return failed(error);
    }
  }

  function failed(error: unknown): Response {
    options.onError?.(error instanceof Error ? error : new Error(String(error)));
    // Never the error's text: it may name a path or quote a request, and it helps no client.
    return jsonRpcError(500, TRANSPORT_ERROR, "Internal error: the workbench could not answer this request; its log says why");
  }

  async function route(request: Request, who: ClientIdentity, body: unknown): Promise<Routed> {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId !== null) {
      const live = legacy.find(sessionId, who);
      if (!live) return { response: sessionNotFound() };
      return { response: await legacy.handle(live, request, body), live };
    }
    if (request.method === "POST" && isInitialize(body)) {
      const refused = full(who);
      if (refused) return { response: refused };
      return await legacy.initialize(request, body, who);
    }
    if (request.method === "POST" && isModern(request, body)) {
      if (Array.isArray(body)) return { response: jsonRpcError(400, INVALID_REQUEST, "Invalid Request: a 2026-07-28 request stands alone, not in a batch") };
      const refused = modern.has(who, body) ? undefined : full(who);
      if (refused) return { response: refused };
      return await modern.handle(request, body, who);
    }
    if (request.method === "GET") {
      return { response: jsonRpcError(405, TRANSPORT_ERROR, "Method not allowed: GET needs an Mcp-Session-Id (2025-11-25); in 2026-07-28 use subscriptions/listen", { Allow: "POST" }) };
    }
    return { response: jsonRpcError(400, TRANSPORT_ERROR, "Bad Request: Mcp-Session-Id header is required") };
  }

  return {
    handle,
    get sessions() {
      return legacy.size + modern.size;
    },
    async drain(graceMs) {
      draining = true;
      const until = Date.now() + graceMs;
      while (posts > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
      return posts;
    },
    async endClients(revoked) {
      const [sessions, hubs] = await Promise.all([legacy.endClients(revoked), modern.endClients(revoked)]);
      return sessions + hubs;
    },
    async close() {
      clearInterval(sweep);
      await Promise.all([legacy.closeAll(), modern.closeAll()]);
    },
  };
}

/** `/mcp`: no scope; `/mcp/dev,docs`: those toolboxes; null: not the endpoint. */
function scopeOfPath(path: string): string[] | undefined | null {
  if (path === ENDPOINT_PATH) return undefined;
  if (!path.startsWith(`${ENDPOINT_PATH}/`)) return null;
  let text: string;
  try {
    text = decodeURIComponent(path.slice(ENDPOINT_PATH.length + 1));
  } catch {
    return null;
  }
  return text.includes("/") ? null : parseScope(text) ?? null;
}

/**
 * A large body that found its client's line full, or waited its whole time in it. Retry-After 5: a
 * full line has at least a line of large calls before it, which a server takes seconds to read.
 */
function tooManyBytes(who: ClientIdentity, why: "full" | "waited", maxWaiting: number): Response {
  const text = why === "full"
    ? `the line of requests waiting for them is full (${maxWaiting} for one client, ${DEFAULT_MAX_WAITING} for all)`
    : `this request waited ${BODY_WAIT_MS / 1000} s in the line for them`;
  return jsonRpcError(503, TRANSPORT_ERROR, `Service unavailable: client ${JSON.stringify(who.name)} has the most bytes of requests in flight and ${text}: retry once an answer came`, {
    "Retry-After": "5",
  });
}

function tooManySessions(max: number): Response {
  return jsonRpcError(503, TRANSPORT_ERROR, `Service unavailable: ${max} sessions are live, the most allowed: end one (DELETE) or try later`, { "Retry-After": "5" });
}

/** `application/json`, parameters aside, as its essence: never a substring match (`text/plain; x=application/json`). */
function isJson(contentType: string | null): boolean {
  return contentType?.split(";")[0].trim().toLowerCase() === "application/json";
}

function isInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((message) => (message as { method?: unknown } | null)?.method === "initialize");
}

/** A request that speaks 2026-07-28: by its header, `server/discover`, or the `_meta` envelope. */
function isModern(request: Request, body: unknown): boolean {
  if (request.headers.get("mcp-protocol-version") === MODERN_VERSION) return true;
  const message = body as { method?: unknown; params?: unknown } | null;
  return message?.method === DISCOVER_METHOD || claimedVersion(message?.params) !== undefined;
}
