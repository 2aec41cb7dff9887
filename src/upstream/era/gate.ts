/**
 * The client's transport in either era, the client's first message deciding: `initialize` keeps
 * 2025-11-25 and everything passes as it did; `server/discover`, or a request carrying the
 * 2026-07-28 `_meta` envelope, makes the session 2026-07-28. Then this gate answers
 * server/discover, reads the client's capabilities and log level from each request, gives each
 * result its `resultType` (and cache fields), turns a server's questions into `input_required`
 * results (parked-calls.ts) and serves subscriptions/listen (listen.ts). The SDK Server and the
 * tool-call lane behind it stay as they are for both eras.
 */
import {
  type ClientCapabilities,
  ErrorCode,
  type Implementation,
  type JSONRPCMessage,
  type RequestId,
  type ServerCapabilities,
  type Transport,
  type TransportSendOptions,
} from "../../protocol/sdk.ts";
import type { MessageTransport } from "../../transport/message-transport.ts";
import { handOn } from "../../transport/raw-json.ts";
import { isParkedState, ParkedCalls } from "./parked-calls.ts";
import { ListenSubscriptions } from "./listen.ts";
import { modernResult } from "./modern-result.ts";
import { clipped, envelopeRefusal } from "./bounds.ts";
import {
  claimedVersion,
  CLIENT_CAPABILITIES_KEY,
  DISCOVER_METHOD,
  LOG_LEVEL_KEY,
  MODERN_VERSION,
  SERVER_INFO_KEY,
  UNSUPPORTED_PROTOCOL_VERSION,
  withoutResourceSubscribe,
} from "../../protocol/wire.ts";

export interface UpstreamGateOptions {
  /** What server/discover says of us. */
  capabilities: ServerCapabilities;
  /**
   * Our instructions for the client, made when it has declared its capabilities: given in
   * server/discover, and put in place of the SDK Server's in a 2025 client's initialize result.
   */
  instructions?: () => string;
  serverInfo: Implementation;
  /** The client chose 2026-07-28 (there is no notifications/initialized then). */
  onModern?: () => void;
  /** The client asked for another log level in a request's `_meta`. */
  onLogLevel?: (level: string) => void;
}

type Era = "unknown" | "legacy" | "modern";

export class UpstreamGate implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The tool-call lane's hook: sees each message first, as on StreamTransport. */
  claim?: (message: JSONRPCMessage) => boolean;

  readonly parked: ParkedCalls;
  readonly #inner: MessageTransport;
  readonly #options: UpstreamGateOptions;
  readonly #listens: ListenSubscriptions;
  #era: Era = "unknown";
  /** The method of each client request not answered yet: its result's cache fields depend on it. */
  readonly #methods = new Map<RequestId, string>();
  /** Our own resources/(un)subscribe requests for listens: their answers stay here. */
  readonly #ownRequests = new Set<RequestId>();
  #ownCount = 0;
  #capabilities?: ClientCapabilities;
  #logLevel?: string;
  /** A 2025 client's initialize not answered yet: its result gets our instructions for that client. */
  #initialize?: RequestId;

  constructor(inner: MessageTransport, options: UpstreamGateOptions) {
    this.#inner = inner;
    this.#options = options;
    const send = (message: JSONRPCMessage) => void inner.send(message).catch(() => {});
    this.parked = new ParkedCalls(send);
    this.#listens = new ListenSubscriptions(send, (uri, on) => this.#watch(uri, on));
    inner.claim = (message) => {
      this.#inbound(message);
      return true;
    };
    // What another replica's copy of this client's hub said: to the listens here, never relayed again.
    inner.heard = (message) => {
      for (const copy of this.#listens.route(message)) void inner.send(copy).catch(() => {});
    };
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
  }

  /** True once the client's first message chose 2026-07-28. */
  get modern(): boolean {
    return this.#era === "modern";
  }

  /** What the client declared in its latest request's `_meta` (2026-07-28 only). */
  get capabilities(): ClientCapabilities | undefined {
    return this.#capabilities;
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.#initialize !== undefined) message = this.#withInstructions(message);
    // The request a message goes with picks its stream over HTTP. Not async: a 2025 session's
    // message takes no step of its own on the way (issue 42).
    if (this.#era !== "modern") return this.#inner.send(message, options);
    return this.#sendModern(message, options);
  }

  async #sendModern(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const id = (message as { id?: RequestId }).id;
    if (id !== undefined && !("method" in message)) {
      if (this.#ownRequests.delete(id)) return;
      const method = this.#methods.get(id);
      this.#methods.delete(id);
      if ("result" in message) message = { ...message, result: modernResult(method, message.result as Record<string, unknown>) };
      const reply = this.parked.answer(message);
      if (reply) await this.#inner.send(reply);
      return;
    }
    if ("method" in message && !("id" in message)) {
      // 2026-07-28 has no elicitationId, so nothing to complete.
      if (message.method === "notifications/elicitation/complete") return;
      const copies = this.#listens.route(message);
      // No listen here asked for it: the client's listen may be on another replica.
      if (copies.length === 0) this.#inner.relay?.(message);
      for (const copy of copies) await this.#inner.send(copy, options);
      return;
    }
    await this.#inner.send(message, options);
  }

  #inbound(message: JSONRPCMessage): void {
    if ("method" in message && message.method === "initialize" && "id" in message && this.#options.instructions) {
      this.#initialize = message.id;
    }
    if (this.#era === "unknown") {
      this.#era = openingEra(message);
      if (this.#era === "modern") this.#options.onModern?.();
    }
    if (this.#era === "modern") this.#modern(message);
    else this.#pass(message);
  }

  #modern(message: JSONRPCMessage): void {
    if (!("method" in message)) return this.#pass(message);
    if (!("id" in message)) {
      if (message.method !== "notifications/cancelled") return this.#pass(message);
      const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (id !== undefined && this.#listens.cancelled(id)) return;
      // A cancelled retry is its call's first request: that id is the one never answered now.
      const cancelled = this.parked.cancelled(message);
      const callId = (cancelled as { params?: { requestId?: RequestId } }).params?.requestId;
      if (callId !== undefined) this.#methods.delete(callId);
      return this.#pass(cancelled);
    }
    if (message.method === "initialize") {
      // A client that starts over the 2025 way gets the 2025 connection.
      this.#era = "legacy";
      return this.#pass(message);
    }
    const version = claimedVersion(message.params);
    if (version !== undefined && version !== MODERN_VERSION) {
      // Cut: a client's 10 MB version would be written back twice.
      const requested = clipped(version);
      return this.#reply(message.id, undefined, {
        code: UNSUPPORTED_PROTOCOL_VERSION,
        message: `Unsupported protocol version: ${JSON.stringify(requested)}`,
        data: { supported: [MODERN_VERSION], requested },
      });
    }
    const oversized = envelopeRefusal(message.params);
    if (oversized) return this.#reply(message.id, undefined, { code: ErrorCode.InvalidParams, message: oversized });
    this.#readEnvelope(message.params);
    switch (message.method) {
      case DISCOVER_METHOD:
        return this.#reply(message.id, this.#discovered());
      case "subscriptions/listen": {
        const refused = this.#listens.open(message.id, message.params);
        return refused ? this.#reply(message.id, undefined, { code: ErrorCode.InvalidParams, message: refused }) : undefined;
      }
      case "tools/call": {
        const refused = this.parked.refusal(message);
        if (refused) return this.#reply(message.id, undefined, { code: ErrorCode.InvalidParams, message: refused });
        if (this.parked.retry(message)) return;
        // Our state for a call that is over: sent on, it would run the tool again from the start.
        const state = (message.params as { requestState?: unknown } | undefined)?.requestState;
        if (isParkedState(state)) {
          return this.#reply(message.id, undefined, {
            code: ErrorCode.InvalidParams,
            message: "Invalid params: requestState is unknown or expired (its call is over): call the tool again",
          });
        }
        this.parked.noteTool(message.id, message.params);
      }
    }
    this.#methods.set(message.id, message.method);
    this.#pass(message);
  }

  #readEnvelope(params: unknown): void {
    const meta = (params as { _meta?: Record<string, unknown> } | undefined)?._meta;
    const capabilities = meta?.[CLIENT_CAPABILITIES_KEY];
    if (typeof capabilities === "object" && capabilities !== null) this.#capabilities = capabilities as ClientCapabilities;
    const level = meta?.[LOG_LEVEL_KEY];
    if (typeof level === "string" && level !== this.#logLevel) {
      this.#logLevel = level;
      this.#options.onLogLevel?.(level);
    }
  }

  /** The answer to a 2025 initialize, with the instructions for the client that sent it (the Server has read its capabilities by now). */
  #withInstructions(message: JSONRPCMessage): JSONRPCMessage {
    if (!("result" in message) || message.id !== this.#initialize) return message;
    this.#initialize = undefined;
    return { ...message, result: { ...message.result, instructions: this.#options.instructions!() } };
  }

  #discovered(): Record<string, unknown> {
    const { capabilities, serverInfo } = this.#options;
    const instructions = this.#options.instructions?.();
    return {
      resultType: "complete",
      supportedVersions: [MODERN_VERSION],
      capabilities: withoutResourceSubscribe(capabilities),
      ...(instructions === undefined ? {} : { instructions }),
      ttlMs: 0,
      cacheScope: "private",
      _meta: { [SERVER_INFO_KEY]: serverInfo },
    };
  }

  #reply(id: RequestId, result?: Record<string, unknown>, error?: { code: number; message: string; data?: unknown }): void {
    const message = (error ? { jsonrpc: "2.0", id, error } : { jsonrpc: "2.0", id, result }) as JSONRPCMessage;
    void this.#inner.send(message).catch(() => {});
  }

  /** A resource a listen wants is subscribed to behind us the way a 2025 client would. */
  #watch(uri: string, on: boolean): void {
    const id = `mcp-workbench/listen/${++this.#ownCount}`;
    this.#ownRequests.add(id);
    this.#pass({ jsonrpc: "2.0", id, method: on ? "resources/subscribe" : "resources/unsubscribe", params: { uri } });
  }

  /** To the lane, else to the SDK Server. */
  #pass(message: JSONRPCMessage): void {
    handOn(message, this);
  }
}

/** The era a client's first message picks; "unknown" for a message that picks none (a notification). */
function openingEra(message: JSONRPCMessage): Era {
  if (!("method" in message) || !("id" in message)) return "unknown";
  if (message.method === "initialize") return "legacy";
  return message.method === DISCOVER_METHOD || claimedVersion(message.params) !== undefined ? "modern" : "unknown";
}
