/**
 * 2026-07-28 over HTTP: each request stands alone (no session id), yet a client's open toolboxes,
 * its parked calls (input_required rounds) and its listens live between requests. They live in a
 * hub: one session per client identity and declared capabilities, fed one request at a time.
 * Each request gets an id of the hub's own (two requests of a client may carry the same id), its
 * progress token too, and its answer goes back with the client's; what a request hears before its
 * answer (progress, log messages of its call, a listen's notifications) comes on its own event
 * stream, which starts when the first of them does or the answer is slow (else the answer is
 * plain JSON, pending-reply.ts). Closing the request cancels it. A hub with nothing in flight ends after the idle time;
 * a request that lands on a replica that never saw the client starts a fresh hub (use_tool opens
 * the toolbox itself there, see tools/pipeline/resolve.ts).
 */
import type { JSONRPCMessage, RequestId, TransportSendOptions } from "../../protocol/sdk.ts";
import type { MessageOrigin, MessageTransport } from "../../transport/message-transport.ts";
import { CLIENT_CAPABILITIES_KEY } from "../../protocol/wire.ts";
import { SUBSCRIPTION_ID_KEY } from "../era/listen.ts";
import { type ClientIdentity, grantKey } from "../client-identity.ts";
import { type Tracked, TrackedSet } from "./tracked-set.ts";
import type { UpstreamSession } from "../session.ts";
import type { OpenSession } from "./legacy-sessions.ts";
import { INVALID_REQUEST, jsonRpcError, type Routed, TRANSPORT_ERROR, wholeJson } from "./replies.ts";
import { canonicalJson } from "../../cache/canonical-json.ts";
import { PendingReply } from "./pending-reply.ts";
import { EVERY_LIST_CHANGED, RelayedNotices } from "./relayed-notices.ts";
import type { Store } from "../../store/store.ts";
import { sha256Hex } from "../../cache/sha256.ts";

interface Hub extends Tracked {
  key: string;
  /** Its key in the change feed: a SHA-256 of the key (which holds up to 64 KiB of capabilities). */
  feed?: string;
  transport: HubTransport;
  session: Promise<UpstreamSession>;
}

/**
 * How often a quiet event stream gets a comment line: the runtime notices a client that closed
 * it (and so cancels its call or ends its listen) only when it writes, so within this time (a
 * call's stream starts within 0.5 to 1 s, see pending-reply.ts).
 */
export const HEARTBEAT_MS = 1_000;

type Message = { jsonrpc: "2.0"; id?: RequestId; method?: string; params?: Record<string, unknown> };

export class ModernHubs extends TrackedSet<Hub> {
  readonly #open: OpenSession;
  /** With a store: what a hub's copy here says for listens that are on another replica (relayed-notices.ts). */
  readonly #notices?: RelayedNotices;
  readonly #unrestored?: () => void;

  constructor(open: OpenSession, store?: Store) {
    super();
    this.#open = open;
    this.#notices = store && new RelayedNotices(store, "hubs");
    this.#notices?.onNotice((feed, message) => {
      for (const hub of this.items.values()) if (hub.feed === feed) hub.transport.heard?.(message);
    });
    // Back after an outage: each listen that asked hears that its lists may have changed.
    this.#unrestored = store?.onRestored?.(() => {
      for (const hub of this.items.values()) for (const notice of EVERY_LIST_CHANGED) hub.transport.heard?.(notice);
    });
  }

  override async closeAll(): Promise<void> {
    await super.closeAll();
    this.#unrestored?.();
    await this.#notices?.close();
  }

  has(client: ClientIdentity, body: unknown): boolean {
    return this.items.has(hubKey(client, body));
  }

  async handle(request: Request, body: unknown, client: ClientIdentity): Promise<Routed> {
    const message = body as Message;
    if (typeof message !== "object" || message === null || typeof message.method !== "string") {
      return { response: jsonRpcError(400, INVALID_REQUEST, "Invalid Request: expected a JSON-RPC request or notification") };
    }
    if (message.id === undefined) {
      // A notification stands alone too: a cancellation names the client's id of a request in flight.
      // Only in the hub its request went to: two conversations of one client may use the same ids.
      if (message.method === "notifications/cancelled") {
        const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
        if (id !== undefined) this.items.get(hubKey(client, body))?.transport.cancelByClientId(id);
      }
      return { response: new Response(null, { status: 202 }) };
    }
    const hub = this.#hub(client, body);
    await hub.session;
    hub.lastUsed = Date.now();
    const accept = request.headers.get("accept") ?? "";
    const streams = accept.includes("text/event-stream");
    if (message.method === "subscriptions/listen" && !streams) {
      return {
        response: jsonRpcError(
          406,
          TRANSPORT_ERROR,
          "Not Acceptable: subscriptions/listen answers with an event stream: accept text/event-stream",
        ),
      };
    }
    // An event stream when the request may hear something before its answer; else plain JSON.
    const eventful = message.method === "tools/call" || message.method === "subscriptions/listen" || progressTokenOf(message) !== undefined;
    // The answer holds the request until the call ends (or its stream starts): the hub is in use (never idle) meanwhile.
    hub.inFlight++;
    try {
      // Closing a request's event stream cancels it; so does notifications/cancelled naming its id.
      // (Not request.signal: Deno aborts it once any response is complete, and says so on stderr.)
      // Plain JSON all the same when the answer comes before anything else (pending-reply.ts).
      if (streams && eventful) {
        return { response: await this.#reply(hub, message, request), live: hub, lasting: message.method === "subscriptions/listen" };
      }
      return { response: await this.#json(hub, message, request) };
    } finally {
      hub.inFlight--;
      hub.lastUsed = Date.now();
    }
  }

  #hub(client: ClientIdentity, body: unknown): Hub {
    const key = hubKey(client, body);
    let hub = this.items.get(key);
    if (!hub) {
      const transport = new HubTransport();
      const notices = this.#notices;
      const feed = notices && sha256Hex(key);
      if (notices && feed) transport.relay = (message) => void notices.relay(feed, message);
      const created: Hub = {
        key,
        feed,
        name: client.name,
        transport,
        lastUsed: Date.now(),
        inFlight: 0,
        session: this.#open(transport, client, () => {
          if (this.items.get(key) === created) this.items.delete(key);
        }, key),
      };
      hub = created;
      this.items.set(key, hub);
      // A session that could not open is no hub: the next request tries again.
      created.session.catch(() => {
        if (this.items.get(key) === created) this.items.delete(key);
      });
    }
    return hub;
  }

  #json(hub: Hub, message: Message, request: Request): Promise<Response> {
    return new Promise((resolve) => {
      hub.transport.exchange(message, {
        event: () => {},
        finish: (answer) => resolve(wholeJson(JSON.stringify(answer), 200)),
        // A client that takes no stream gets no body for a request it cancelled.
        end: () => resolve(new Response(null, { status: 204 })),
      }, request);
    });
  }

  #reply(hub: Hub, message: Message, request: Request): Promise<Response> {
    let internal = "";
    const reply = new PendingReply({
      headers: {},
      streamHeaders: { "Cache-Control": "no-cache" },
      // A quiet stream whose client left is only noticed when written to: a comment now and then.
      heartbeatMs: HEARTBEAT_MS,
      heartbeat: ": \n\n",
      cancel: () => hub.transport.cancel(internal),
    });
    internal = hub.transport.exchange(message, {
      event: (event) => reply.event(event),
      finish: (answer) => reply.finish(answer),
      end: () => reply.end(),
    }, request);
    // A listen is answered only when it ends: its stream starts at once.
    if (message.method === "subscriptions/listen") reply.stream();
    return reply.response;
  }

  protected async end(hub: Hub): Promise<void> {
    this.items.delete(hub.key);
    await (await hub.session).close();
  }
}

/** One hub per client and the capabilities its requests declare. */
function hubKey(client: ClientIdentity, body: unknown): string {
  const meta = (body as { params?: { _meta?: Record<string, unknown> } } | null)?.params?._meta;
  return `${grantKey(client)}\n${canonicalJson(meta?.[CLIENT_CAPABILITIES_KEY] ?? {})}`;
}

function progressTokenOf(message: Message): string | number | undefined {
  const token = (message.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
  return typeof token === "string" || typeof token === "number" ? token : undefined;
}

interface Sink {
  event(message: unknown): void;
  finish(message: unknown): void;
  /** Cancelled by the client (notifications/cancelled): the response ends with no answer. */
  end(): void;
}

interface Exchange {
  clientId: RequestId;
  progressToken?: string | number;
  sink: Sink;
}

/** The hub session's transport: requests in with ids of its own, answers and notices out to their HTTP request. */
class HubTransport implements MessageTransport {
  claim?: (message: JSONRPCMessage, origin?: MessageOrigin) => boolean;
  relay?: (message: JSONRPCMessage) => void;
  heard?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #exchanges = new Map<string, Exchange>();
  #count = 0;

  start(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    for (const exchange of this.#exchanges.values()) exchange.sink.finish(gone(exchange.clientId));
    this.#exchanges.clear();
    this.onclose?.();
    return Promise.resolve();
  }

  /** Passes the client's request on under an id of ours; the id. */
  exchange(message: Message, sink: Sink, origin: Request): string {
    const internal = `http-${++this.#count}`;
    const token = progressTokenOf(message);
    this.#exchanges.set(internal, { clientId: message.id!, progressToken: token, sink });
    let params = message.params;
    if (token !== undefined) params = { ...params, _meta: { ...params!._meta as object, progressToken: internal } };
    const passed = { ...message, id: internal, ...(params && { params }) } as JSONRPCMessage;
    this.claim?.(passed, { headers: origin.headers, clientId: message.id! });
    return internal;
  }

  /** The client closed the request: it is cancelled (a listen ends). */
  cancel(internal: string): void {
    if (!this.#exchanges.delete(internal)) return;
    this.claim?.({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: internal, reason: "The client closed the HTTP request" },
    });
  }

  /** The client cancelled its request `id`: it is cancelled, and its response ends unanswered. */
  cancelByClientId(id: RequestId): void {
    for (const [internal, exchange] of this.#exchanges) {
      if (exchange.clientId !== id) continue;
      this.cancel(internal);
      exchange.sink.end();
    }
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const out = message as Message & { result?: unknown; error?: unknown };
    if (out.method === undefined && out.id !== undefined) {
      const exchange = this.#exchanges.get(String(out.id));
      if (exchange) {
        this.#exchanges.delete(String(out.id));
        exchange.sink.finish({ ...out, id: exchange.clientId });
      }
      return Promise.resolve();
    }
    if (out.method === undefined || out.id !== undefined) return Promise.resolve();
    const params = { ...out.params };
    const meta = params._meta as Record<string, unknown> | undefined;
    let target = options?.relatedRequestId;
    if (out.method === "notifications/progress") target = params.progressToken as RequestId;
    else if (meta?.[SUBSCRIPTION_ID_KEY] !== undefined) target = meta[SUBSCRIPTION_ID_KEY] as RequestId;
    const exchange = target === undefined ? undefined : this.#exchanges.get(String(target));
    if (!exchange) return Promise.resolve();
    if (out.method === "notifications/progress") params.progressToken = exchange.progressToken;
    if (meta?.[SUBSCRIPTION_ID_KEY] !== undefined) params._meta = { ...meta, [SUBSCRIPTION_ID_KEY]: exchange.clientId };
    exchange.sink.event({ ...out, params });
    return Promise.resolve();
  }
}

function gone(id: RequestId): unknown {
  return { jsonrpc: "2.0", id, error: { code: TRANSPORT_ERROR, message: "The workbench is stopping: send the request again" } };
}
