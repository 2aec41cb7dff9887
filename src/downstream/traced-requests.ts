/**
 * The requests a server session sends of its own, through its SDK Client (initialize and the
 * listings, on a start and again after list_changed), as CLIENT spans (issue 50): each under the
 * span of what made it (the server's start), its context in the request's `_meta`, ended by the
 * server's answer, its error, or its cancellation (the SDK's timeout). Every other request the
 * Client carries was traced by whoever sent it (a tools/call's trace step, the catalog's prompts,
 * resources and skills reads) or is bookkeeping (a task's polls, logging/setLevel): it passes as it
 * is. Only in place when telemetry is on.
 */
import type { ServerConfig } from "../config/index.ts";
import type { JSONRPCMessage, RequestId, Transport, TransportSendOptions } from "../protocol/sdk.ts";
import { injectMeta, type McpPeer, serverOfUrl, type Span, type Telemetry } from "../telemetry/index.ts";

/** Spans no answer ended: past this many, the oldest is ended (a server that never answers holds no more). */
const MAX_OPEN_SPANS = 256;

/** The requests a server session makes of its own accord: only these get a span here. */
const OWN_REQUESTS = new Set(["initialize", "tools/list", "prompts/list", "resources/list", "resources/templates/list", "skills/list"]);

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
    if (!("method" in message)) return this.#inner.send(message, options);
    if (!("id" in message)) {
      // The SDK's timeout (or a close) cancels a request of ours: it gets no answer, its span ends here.
      if (message.method === "notifications/cancelled") this.#ended(message.params?.requestId as RequestId, CANCELLED);
      return this.#inner.send(message, options);
    }
    if (!OWN_REQUESTS.has(message.method)) return this.#inner.send(message, options);
    const span = this.#telemetry.clientSpan({ method: message.method, params: message.params }, this.#scope(), this.#peer);
    if (this.#open.size >= MAX_OPEN_SPANS) this.#ended(this.#open.keys().next().value!, CANCELLED);
    this.#open.set(message.id, span);
    // A server's own requests carry no client's baggage: a shared server's start serves every member.
    const sent = span.context ? { ...message, params: injectMeta(message.params, span, { baggage: false }) } : message;
    try {
      return this.#inner.send(sent as JSONRPCMessage, options).catch((error) => {
        this.#ended(message.id, error);
        throw error;
      });
    } catch (error) {
      this.#ended(message.id, error);
      throw error;
    }
  }

  /** Ends the span of request `id` with `error`, if it is still open. */
  #ended(id: RequestId | undefined, error: unknown): void {
    const span = id === undefined ? undefined : this.#open.get(id);
    if (!span) return;
    this.#open.delete(id!);
    span.fail(error);
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

const CANCELLED = new DOMException("The request was cancelled (timed out, or its session ended)", "AbortError");

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
  // No spread: this is made for every traced call.
  if (!remote) return { transport: "pipe", toolbox, server };
  return { transport: "tcp", serverAddress: remote.serverAddress, serverPort: remote.serverPort, toolbox, server };
}
