/**
 * The requests a server session's own SDK Client sends (initialize, the listings, a listing again
 * after list_changed, skills/list, a ping), as CLIENT spans (issue 50): each under the span of what
 * made it (the server's start), its context in the request's `_meta`, ended by the server's answer.
 * A request that carries a `traceparent` already was traced by whoever sent it (a tools/call's trace
 * step, the catalog's prompts, resources and skills reads): it passes as it is. Only in place when
 * telemetry is on.
 */
import type { ServerConfig } from "../config/index.ts";
import type { JSONRPCMessage, RequestId, Transport, TransportSendOptions } from "../protocol/sdk.ts";
import { injectMeta, type McpPeer, serverOfUrl, type Span, type Telemetry } from "../telemetry/index.ts";

/** Spans no answer ended are ended at this many (a server that never answers holds no more). */
const MAX_OPEN_SPANS = 256;

type MessageHandler = NonNullable<Transport["onmessage"]>;

export class TracedRequests implements Transport {
  readonly #inner: Transport;
  readonly #telemetry: Telemetry;
  readonly #peer: McpPeer;
  /** The span the next requests go under (the server's start), if any. */
  readonly #scope: () => Span | undefined;
  readonly #open = new Map<RequestId, Span>();
  #onmessage?: MessageHandler;

  constructor(inner: Transport, telemetry: Telemetry, peer: McpPeer, scope: () => Span | undefined) {
    this.#inner = inner;
    this.#telemetry = telemetry;
    this.#peer = peer;
    this.#scope = scope;
  }

  // The SDK chains the handlers it finds (the link's own onerror): they are the inner transport's.
  get onerror(): Transport["onerror"] {
    return this.#inner.onerror;
  }
  set onerror(handler: Transport["onerror"]) {
    this.#inner.onerror = handler;
  }

  get onclose(): Transport["onclose"] {
    return this.#inner.onclose;
  }
  set onclose(handler: Transport["onclose"]) {
    this.#inner.onclose = handler && (() => {
      this.#endAll();
      handler();
    });
  }

  get onmessage(): Transport["onmessage"] {
    return this.#onmessage ?? this.#inner.onmessage;
  }
  set onmessage(handler: Transport["onmessage"]) {
    this.#onmessage = handler;
    this.#inner.onmessage = handler && ((message, extra) => {
      this.#answered(message);
      handler(message, extra);
    });
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version);
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  close(): Promise<void> {
    this.#endAll();
    return this.#inner.close();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (!("method" in message) || !("id" in message) || traced(message.params)) return this.#inner.send(message, options);
    const request = { method: message.method, params: message.params };
    const span = this.#telemetry.clientSpan(request, this.#scope(), this.#peer);
    if (this.#open.size >= MAX_OPEN_SPANS) this.#endAll();
    this.#open.set(message.id, span);
    const sent = span.context ? { ...message, params: injectMeta(message.params, span) } : message;
    return this.#inner.send(sent as JSONRPCMessage, options).catch((error) => {
      this.#open.delete(message.id);
      span.fail(error);
      throw error;
    });
  }

  #answered(message: JSONRPCMessage): void {
    const id = "method" in message ? undefined : (message as { id?: RequestId }).id;
    const span = id === undefined ? undefined : this.#open.get(id);
    if (!span) return;
    this.#open.delete(id!);
    if ("error" in message) span.fail(message.error);
    else span.end();
  }

  #endAll(): void {
    for (const span of this.#open.values()) span.fail(new DOMException("The server session ended before the answer", "AbortError"));
    this.#open.clear();
  }
}

function traced(params: unknown): boolean {
  const meta = (params as { _meta?: { traceparent?: unknown } } | undefined)?._meta;
  return typeof meta === "object" && meta !== null && meta.traceparent !== undefined;
}

/** The transport a server session's Client is given: `transport` itself when telemetry is off. */
export function tracedRequests(
  transport: Transport,
  telemetry: Telemetry | undefined,
  target: { config: ServerConfig; toolbox: string; server: string },
  scope: () => Span | undefined,
): Transport {
  if (!telemetry || (!telemetry.tracing && !telemetry.metering)) return transport;
  return new TracedRequests(transport, telemetry, downstreamPeer(target.config, target.toolbox, target.server), scope);
}

/** A server behind the workbench as its CLIENT spans name it: `pipe` or `tcp` with its address, its toolbox and name. */
export function downstreamPeer(config: ServerConfig | undefined, toolbox: string, server: string): McpPeer {
  const remote = config && config.transport !== "stdio" ? serverOfUrl(config.url) : undefined;
  return { transport: remote ? "tcp" : "pipe", ...remote, toolbox, server };
}
