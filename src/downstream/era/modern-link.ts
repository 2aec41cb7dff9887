/**
 * Speaks MCP 2026-07-28 to a server on behalf of the SDK 1.32 Client, the tools/call lane and the
 * relay above it, which all speak 2025-11-25: the Client's initialize is answered from the
 * server/discover result, every request gets the `_meta` envelope, and an `input_required` result
 * becomes ordinary server→client requests (elicitation, sampling, roots) whose answers go back to
 * the server with the request sent again. Messages in, messages out: the link wiring is era-link.ts.
 */
import { ErrorCode, type JSONRPCMessage, type RequestId } from "../../protocol/sdk.ts";
import { rawIncludes } from "../../transport/raw-json.ts";
import {
  type DiscoverResult,
  type Envelope,
  INPUT_METHODS,
  type InputRequiredResult,
  isInputRequired,
  LEGACY_VERSION,
  MODERN_VERSION,
  modernClientCapabilities,
  PASS_INPUT_REQUIRED_KEY,
  SERVER_INFO_KEY,
  withEnvelope,
  withoutResourceSubscribe,
} from "../../protocol/wire.ts";

/** Rounds of input one request may ask for before it fails: a server that keeps asking is stuck. */
export const MAX_INPUT_ROUNDS = 8;
/** Ids of what we make up: no clash with the Client's numbers, the lane's "wb-" or each other. */
const INPUT_ID_PREFIX = "era-input-";
const RETRY_ID_PREFIX = "era-retry-";

export interface ModernPeer {
  /** Sends to the server. */
  toServer(message: JSONRPCMessage): Promise<void>;
  /** Delivers to the side in front (the lane, else the Client) as if the server had sent it. */
  toClient(message: JSONRPCMessage): void;
  /** Cancels a request by ending its own exchange (HTTP: its POST); false when the link cannot. */
  abort?(id: RequestId): boolean;
  /** Takes secrets (a URL's credentials, a header's value) out of a text for the client. */
  redact?(text: string): string;
}

type Json = Record<string, unknown>;

/** A request of ours that may come back asking for input, and where its loop stands. */
interface Exchange {
  /** The id the Client or lane gave it, which its final answer must carry. */
  readonly id: RequestId;
  readonly method: string;
  /** With the envelope, without inputResponses and requestState. */
  readonly params: Json;
  /** The id of the copy the server has now; undefined while the client is asked. */
  inFlight?: RequestId;
  rounds: number;
  requestState?: string;
  responses: Json;
  /** Our input request ids still unanswered, with their key in inputRequests. */
  waiting: Map<RequestId, { key: string; method: string }>;
}

export class ModernSession {
  readonly #discovered: DiscoverResult;
  readonly #peer: ModernPeer;
  readonly #clientInfo: Envelope["clientInfo"];
  #clientCapabilities: Json = {};
  #logLevel?: string;
  /** By the id the server knows now (the first id, then each retry's). */
  readonly #exchanges = new Map<RequestId, Exchange>();
  /** By the original id, for cancellation. */
  readonly #byOriginal = new Map<RequestId, Exchange>();
  /** Our input requests to the Client, by id. */
  readonly #inputs = new Map<RequestId, Exchange>();
  #nextId = 1;

  constructor(discovered: DiscoverResult, peer: ModernPeer, clientInfo: Envelope["clientInfo"]) {
    this.#discovered = discovered;
    this.#peer = peer;
    this.#clientInfo = clientInfo;
  }

  /** What the server's capabilities look like to the Client: no resource subscriptions in 2026-07-28. */
  get capabilities(): Json {
    return withoutResourceSubscribe(this.#discovered.capabilities);
  }

  /** The request whose `input_required` our input request `id` asks (its question is that call's own). */
  askedFor(id: RequestId): RequestId | undefined {
    return this.#inputs.get(id)?.id;
  }

  /** A message from the Client or lane, on its way to the server. */
  outgoing(message: JSONRPCMessage): Promise<void> {
    if ("method" in message && "id" in message) return this.#request(message.id, message.method, message.params);
    if ("method" in message) return this.#notification(message.method, message.params, message);
    if (message.id !== undefined && this.#inputs.has(message.id)) {
      this.#answered(message);
      return Promise.resolve();
    }
    // A late answer to an input request of a call given up: the server never asked it.
    if (typeof message.id === "string" && message.id.startsWith(INPUT_ID_PREFIX)) return Promise.resolve();
    return this.#peer.toServer(message);
  }

  /** A message from the server: true when handled here (its result is delivered by us or not at all). */
  incoming(message: JSONRPCMessage): boolean {
    if ("method" in message || !("id" in message) || message.id === undefined) return false;
    const exchange = this.#exchanges.get(message.id);
    if (!exchange) return false;
    this.#exchanges.delete(message.id);
    if ("result" in message && mayAskForInput(message.result) && isInputRequired(message.result)) {
      this.#ask(exchange, message.result);
      return true;
    }
    this.#byOriginal.delete(exchange.id);
    if (message.id === exchange.id) return false;
    this.#peer.toClient({ ...message, id: exchange.id } as JSONRPCMessage);
    return true;
  }

  #envelope(): Envelope {
    return { clientInfo: this.#clientInfo, clientCapabilities: this.#clientCapabilities, logLevel: this.#logLevel };
  }

  #request(id: RequestId, method: string, params: Json | undefined): Promise<void> {
    switch (method) {
      case "initialize":
        this.#clientCapabilities = modernClientCapabilities(params?.capabilities);
        return this.#answer(id, this.#initializeResult());
      case "ping":
        return this.#answer(id, {});
      case "logging/setLevel":
        // 2026-07-28 has no setLevel: the level rides on every request from now on.
        this.#logLevel = typeof params?.level === "string" ? params.level : undefined;
        return this.#answer(id, {});
      case "resources/subscribe":
      case "resources/unsubscribe":
        return this.#fail(
          id,
          ErrorCode.MethodNotFound,
          `Resource subscriptions do not exist in MCP ${MODERN_VERSION}: '${method}' not sent`,
        );
    }
    const enveloped = withEnvelope(params, this.#envelope());
    const meta = enveloped._meta as Json;
    if (meta[PASS_INPUT_REQUIRED_KEY] === true) {
      // The side in front relays input_required as it is: nothing to track.
      delete meta[PASS_INPUT_REQUIRED_KEY];
      return this.#peer.toServer({ jsonrpc: "2.0", id, method, params: enveloped });
    }
    const exchange: Exchange = { id, method, params: enveloped, inFlight: id, rounds: 0, responses: {}, waiting: new Map() };
    this.#exchanges.set(id, exchange);
    this.#byOriginal.set(id, exchange);
    return this.#peer.toServer({ jsonrpc: "2.0", id, method, params: enveloped });
  }

  #notification(method: string, params: Json | undefined, message: JSONRPCMessage): Promise<void> {
    switch (method) {
      // Neither exists in 2026-07-28: there is no session to be initialized, roots are asked per request.
      case "notifications/initialized":
      case "notifications/roots/list_changed":
        return Promise.resolve();
      case "notifications/cancelled":
        return this.#cancel(params ?? {});
    }
    return this.#peer.toServer(message);
  }

  /** The Client or lane gave up a request: its input loop stops, and the server hears of it. */
  #cancel(params: Json): Promise<void> {
    const requestId = params.requestId as RequestId;
    const exchange = this.#byOriginal.get(requestId);
    let target: RequestId | undefined = requestId;
    if (exchange) {
      this.#end(exchange);
      target = exchange.inFlight;
    }
    // Waiting on the client, the server holds nothing for it: there is nothing to cancel there.
    if (target === undefined || this.#peer.abort?.(target)) return Promise.resolve();
    const cancelled = { ...params, requestId: target };
    return this.#peer.toServer({ jsonrpc: "2.0", method: "notifications/cancelled", params: withEnvelope(cancelled, this.#envelope()) });
  }

  /** Turns one `input_required` into requests to the Client, or fails the exchange. */
  #ask(exchange: Exchange, result: InputRequiredResult): void {
    exchange.inFlight = undefined;
    if (exchange.rounds >= MAX_INPUT_ROUNDS) {
      return this.#failExchange(
        exchange,
        ErrorCode.InternalError,
        `Server asked for input more than ${MAX_INPUT_ROUNDS} times for one request: given up`,
      );
    }
    exchange.rounds++;
    const requests = Object.entries(result.inputRequests ?? {});
    if (requests.length === 0) {
      return this.#failExchange(exchange, ErrorCode.InternalError, "Server asked for input but named no input request");
    }
    const unknown = requests.find(([, request]) => !INPUT_METHODS.has(String(request?.method)));
    if (unknown) {
      return this.#failExchange(
        exchange,
        ErrorCode.InternalError,
        `Server asked for input by an unknown method: '${String(unknown[1]?.method)}'`,
      );
    }
    exchange.requestState = result.requestState;
    exchange.responses = {};
    const sent: JSONRPCMessage[] = [];
    for (const [key, request] of requests) {
      const id = `${INPUT_ID_PREFIX}${this.#nextId++}`;
      exchange.waiting.set(id, { key, method: request.method });
      this.#inputs.set(id, exchange);
      sent.push({ jsonrpc: "2.0", id, method: request.method, params: request.params ?? {} });
    }
    for (const message of sent) this.#peer.toClient(message);
  }

  /** The Client answered one input request; with all answered, the request goes to the server again. */
  #answered(message: JSONRPCMessage): void {
    if ("method" in message || !("id" in message) || message.id === undefined) return;
    const exchange = this.#inputs.get(message.id)!;
    this.#inputs.delete(message.id);
    const input = exchange.waiting.get(message.id);
    if (!input) return;
    exchange.waiting.delete(message.id);
    if ("error" in message) {
      const { code, message: text } = message.error;
      return this.#failExchange(exchange, code, `The client did not answer the server's ${input.method} ('${input.key}'): ${text}`);
    }
    exchange.responses[input.key] = (message as { result: unknown }).result;
    if (exchange.waiting.size > 0) return;
    const id = `${RETRY_ID_PREFIX}${this.#nextId++}`;
    exchange.inFlight = id;
    this.#exchanges.set(id, exchange);
    const params = {
      ...exchange.params,
      inputResponses: exchange.responses,
      ...(exchange.requestState !== undefined && { requestState: exchange.requestState }),
    };
    this.#peer.toServer({ jsonrpc: "2.0", id, method: exchange.method, params }).catch((error) => {
      const text = error instanceof Error ? error.message : String(error);
      this.#failExchange(
        exchange,
        ErrorCode.InternalError,
        `Sending the answers to the server failed: ${this.#peer.redact?.(text) ?? text}`,
      );
    });
  }

  /** Forgets an exchange; input requests still with the Client are cancelled there. */
  #end(exchange: Exchange): void {
    this.#byOriginal.delete(exchange.id);
    if (exchange.inFlight !== undefined) this.#exchanges.delete(exchange.inFlight);
    for (const id of exchange.waiting.keys()) {
      this.#inputs.delete(id);
      this.#peer.toClient({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: id, reason: "the request was given up" },
      });
    }
    exchange.waiting.clear();
  }

  #failExchange(exchange: Exchange, code: number, message: string): void {
    this.#end(exchange);
    this.#peer.toClient({ jsonrpc: "2.0", id: exchange.id, error: { code, message } });
  }

  #initializeResult(): Json {
    const { instructions, _meta } = this.#discovered;
    const serverInfo = (_meta?.[SERVER_INFO_KEY] ?? { name: "unknown", version: "unknown" }) as Json;
    return {
      // What the SDK 1.32 Client accepts; the server itself speaks 2026-07-28 through us.
      protocolVersion: LEGACY_VERSION,
      capabilities: this.capabilities,
      serverInfo,
      ...(typeof instructions === "string" && { instructions }),
    };
  }

  /** Answered here, after the Client's send returns: it may not expect an answer inside it. */
  #answer(id: RequestId, result: Json): Promise<void> {
    queueMicrotask(() => this.#peer.toClient({ jsonrpc: "2.0", id, result } as JSONRPCMessage));
    return Promise.resolve();
  }

  #fail(id: RequestId, code: number, message: string): Promise<void> {
    queueMicrotask(() => this.#peer.toClient({ jsonrpc: "2.0", id, error: { code, message } }));
    return Promise.resolve();
  }
}

/**
 * False for a result still in the bytes it came in (a large tool result on its way through
 * unparsed) that cannot be `input_required`: looking at its resultType would parse it.
 */
function mayAskForInput(result: unknown): boolean {
  return rawIncludes(result, '"input_required"') ?? true;
}
