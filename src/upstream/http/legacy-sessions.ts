/**
 * 2025-11-25 Streamable HTTP sessions: `initialize` opens one (its `Mcp-Session-Id`), later requests
 * name it, DELETE ends it, and an id not known here (never given, ended, expired, or another
 * client's) gets 404, so that the client starts a new session as the spec says. The wire (Accept
 * and Content-Type checks, SSE framing, the GET stream, batches) is the SDK's web-standard server
 * transport, one per session; this file keeps the table and gives the transport to a session.
 * A POST of one plain request (plain-requests.ts) is answered here instead, as the SDK would answer
 * it but as JSON when nothing goes before its answer (issue 42): no zod pass, no stream per call.
 * Each session has a record in the store (session-records.ts), and its state is kept under its id:
 * a replica asked for a session it never saw restores it from there (the client's initialize
 * replayed), so that no replica is special.
 */
import { WebStandardStreamableHTTPServerTransport } from "../../protocol/sdk-http.ts";
import type { MessageTransport } from "../../transport/message-transport.ts";
import { type ClientIdentity, grantKey } from "../client-identity.ts";
import type { UpstreamSession } from "../session.ts";
import { jsonRpcError, SESSION_NOT_FOUND, TRANSPORT_ERROR } from "./replies.ts";
import { type Tracked, TrackedSet } from "./tracked-set.ts";
import { type SessionRecord, type SessionRecords, StoreUnavailable } from "./session-records.ts";
import { SessionTransport } from "./session-transport.ts";
import { EVERY_LIST_CHANGED, RelayedNotices } from "./relayed-notices.ts";

/**
 * Opens a session for `client` on `transport`; `onClose` runs when it ends from the client's side;
 * `stateKey` finds what it keeps (a 2026-07-28 hub's key; a new one when not said); `httpSessionId`
 * is a 2025-11-25 session's `Mcp-Session-Id` (its spans' mcp.session.id).
 */
export type OpenSession = (
  transport: MessageTransport,
  client: ClientIdentity,
  onClose: () => void,
  stateKey?: string,
  httpSessionId?: string,
) => Promise<UpstreamSession>;

/** One live session: its transport, its session, whose it is and when it was last used. */
export interface LiveSession extends Tracked {
  /** Whose it is: the client's name and grants (see grantKey). */
  readonly client: string;
  readonly http: WebStandardStreamableHTTPServerTransport;
  readonly transport: SessionTransport;
  session?: UpstreamSession;
  /** The client's GET streams open on this replica: a notification of no request is written there, or relayed. */
  streams: number;
}

export class LegacySessions extends TrackedSet<LiveSession> {
  readonly #open: OpenSession;
  readonly #records?: SessionRecords;
  readonly #notices?: RelayedNotices;
  readonly #unrestored?: () => void;
  /** Sessions being restored here, by id: two requests for one restore it once. */
  readonly #restoring = new Map<string, Promise<LiveSession | undefined>>();

  constructor(open: OpenSession, records?: SessionRecords) {
    super();
    this.#open = open;
    this.#records = records;
    const notices = this.#notices = records && new RelayedNotices(records.store, "sessions");
    // A session its client ended on another replica ends here too.
    records?.onEnded((id) => {
      const live = this.items.get(id);
      if (live) void this.end(live);
    });
    // What another replica's copy of a session said for its GET stream, when the stream is here.
    notices?.onNotice((id, message) => {
      const live = this.items.get(id);
      if (live && live.streams > 0) void live.http.send(message).catch(() => {});
    });
    // Back after an outage, the store never gave what was said meanwhile: every list may have changed.
    this.#unrestored = records?.store.onRestored?.(() => {
      for (const live of this.items.values()) {
        if (live.streams > 0) for (const notice of EVERY_LIST_CHANGED) void live.http.send(notice).catch(() => {});
      }
    });
  }

  /**
   * The session a request names, if it is the same client's, with the same grants: live here, or
   * restored from its record. StoreUnavailable when its record cannot be read (503, not 404).
   */
  async find(sessionId: string, client: ClientIdentity): Promise<LiveSession | undefined> {
    const live = this.items.get(sessionId);
    if (live) return live.client === grantKey(client) ? live : undefined;
    if (!this.#records) return undefined;
    let restoring = this.#restoring.get(sessionId);
    if (!restoring) {
      restoring = this.#restore(sessionId, client).finally(() => this.#restoring.delete(sessionId));
      this.#restoring.set(sessionId, restoring);
    }
    const restored = await restoring;
    return restored && restored.client === grantKey(client) ? restored : undefined;
  }

  /** Opens a session and lets it answer the initialize in `body`; its record goes to the store. */
  async initialize(request: Request, body: unknown, client: ClientIdentity): Promise<{ response: Response; live?: LiveSession }> {
    const id = crypto.randomUUID();
    const opened = await this.#start(id, client, (http) => http.handleRequest(request, { parsedBody: body }));
    const messages = (Array.isArray(body) ? body : [body]) as { method?: unknown }[];
    const initialize = messages.find((message) => message?.method === "initialize") as SessionRecord["initialize"];
    if (opened.live && this.#records) {
      // Written before the client has the id: a replica asked for it next finds it.
      await this.#records.write(id, { client: grantKey(client), initialize }).catch(() => {});
    }
    return opened;
  }

  /** A session made here under `id`, its transport given the first request by `first`. */
  async #start(id: string, client: ClientIdentity, first: (http: WebStandardStreamableHTTPServerTransport) => Promise<Response>) {
    let live: LiveSession | undefined;
    const http: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () => {
        live = { client: grantKey(client), name: client.name, http, transport, lastUsed: Date.now(), inFlight: 0, streams: 0 };
        this.items.set(id, live);
      },
    });
    const transport = new SessionTransport(http);
    // The client's GET stream is on another replica, or on none: that replica writes it (relayed-notices.ts).
    transport.elsewhere = (message) => live !== undefined && live.streams === 0 && (this.#notices?.relay(id, message) ?? false);
    // Its state is kept under its id: any replica that serves it finds it there.
    const session = await this.#open(transport, client, () => this.items.delete(id), id, id);
    const response = await first(http);
    if (!live) {
      // The initialize was refused (headers, a second message): no session was made.
      await session.close();
      return { response };
    }
    live.session = session;
    return { response, live };
  }

  /** A session this replica never saw, from its record: the client's initialize replayed, unanswered. */
  async #restore(id: string, client: ClientIdentity): Promise<LiveSession | undefined> {
    const record = await this.#records!.read(id);
    if (!record || record.client !== grantKey(client)) return undefined;
    const { live } = await this.#start(id, client, (http) => replay(http, id, record));
    return live;
  }

  /** A request within a live session: POST, GET (its stream) or DELETE. */
  async handle(live: LiveSession, request: Request, body: unknown): Promise<Response> {
    live.lastUsed = Date.now();
    this.#records?.touch(live.http.sessionId!);
    const plain = request.method === "POST" ? live.transport.plain.answer(request, body, live.http.sessionId!) : undefined;
    if (plain) {
      // In use (never idle) until the answer or its stream is there; a stream counts on from then (endpoint.ts).
      live.inFlight++;
      try {
        return await plain;
      } finally {
        live.inFlight--;
        live.lastUsed = Date.now();
      }
    }
    const response = await live.http.handleRequest(request, body === undefined ? undefined : { parsedBody: body });
    if (request.method === "DELETE") await this.#delete(live);
    if (request.method === "GET" && response.ok && response.body) return counted(live, response);
    return response;
  }

  /** The client ended its session (DELETE): its record and what it kept go, on every replica. */
  async #delete(live: LiveSession): Promise<void> {
    const id = live.http.sessionId!;
    await Promise.all([this.#records?.remove(id), live.session?.forget()]);
    await this.end(live);
  }

  /** This replica lets go of a session (idle here, revoked, stopping): its record stays for the others. */
  override async closeAll(): Promise<void> {
    await super.closeAll();
    this.#unrestored?.();
    await Promise.all([this.#records?.close(), this.#notices?.close()]);
  }

  protected async end(live: LiveSession): Promise<void> {
    if (live.http.sessionId !== undefined) {
      this.items.delete(live.http.sessionId);
      this.#records?.release(live.http.sessionId);
    }
    await live.session?.close();
    await live.http.close().catch(() => {});
  }
}

/** A GET stream's response, counted among the session's streams here until it ends or the client lets go of it. */
function counted(live: LiveSession, response: Response): Response {
  const reader = response.body!.getReader();
  live.streams++;
  let open = true;
  const ended = () => {
    if (open) live.streams--;
    open = false;
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (done) {
        ended();
        controller.close();
      } else controller.enqueue(value);
    },
    cancel(reason) {
      ended();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** 404 for a session id that is not (or no longer) live here. */
export function sessionNotFound(): Response {
  return jsonRpcError(404, SESSION_NOT_FOUND, "Session not found");
}

/** 503 for a session whose record cannot be read: it may live, and the client should try again soon. */
export function sessionUnreadable(error: StoreUnavailable): Response {
  return jsonRpcError(503, TRANSPORT_ERROR, `Service unavailable: ${error.message}; try again`, { "Retry-After": "2" });
}

export { StoreUnavailable };

/** The client's initialize and initialized, as they came, given to a new transport; their answers go nowhere. */
async function replay(http: WebStandardStreamableHTTPServerTransport, id: string, record: SessionRecord): Promise<Response> {
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const initialize = new Request("http://replay/mcp", { method: "POST", headers, body: JSON.stringify(record.initialize) });
  const response = await http.handleRequest(initialize, { parsedBody: record.initialize });
  // Read whole: the answer is written once the session took the client's initialize.
  await response.text().catch(() => "");
  const initialized = { jsonrpc: "2.0" as const, method: "notifications/initialized" };
  const version = (record.initialize.params.protocolVersion as string | undefined) ?? "2025-11-25";
  const after = new Request("http://replay/mcp", {
    method: "POST",
    headers: { ...headers, "mcp-session-id": id, "mcp-protocol-version": version },
    body: JSON.stringify(initialized),
  });
  (await http.handleRequest(after, { parsedBody: initialized })).body?.cancel().catch(() => {});
  return response;
}
