/**
 * The client's requests as telemetry sees them (issue 50): a SERVER span from each request the
 * client sends (its parent the `traceparent` in its `params._meta`) to the answer or error sent
 * back, whoever answers it (the SDK Server, the tool-call lane, the era gate). It sits between the
 * client's transport and the gate only when telemetry is on: off, no message meets it.
 */
import type { JSONRPCMessage, RequestId, TransportSendOptions } from "../protocol/sdk.ts";
import { type MessageOrigin, type MessageTransport, originHeaders } from "../transport/message-transport.ts";
import { claimedVersion } from "../protocol/wire.ts";
import { unreadResult } from "../transport/raw-json.ts";
import { MCP_PROTOCOL_VERSION, type Span, type Telemetry } from "../telemetry/index.ts";
import { knownVersion, spanRequest } from "./span-request.ts";

/** How the client reaches the workbench: `pipe` over stdio, `tcp` over HTTP (network.transport). */
export type NetworkTransport = "pipe" | "tcp";

/** Spans no answer ended are ended at this many (a client that never reads its answers holds no more). */
const MAX_OPEN_SPANS = 4096;

export class TracedTransport implements MessageTransport {
  claim?: (message: JSONRPCMessage, origin?: MessageOrigin) => boolean;
  /** The tool names the session offers (its dispatcher's): another is `_OTHER` in a span (span-request.ts). */
  knownTool: (name: string) => boolean = () => false;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  readonly #inner: MessageTransport;
  readonly #telemetry: Telemetry;
  readonly #transport: NetworkTransport;
  /** The SERVER span of each client request not answered yet. */
  readonly #spans = new Map<RequestId, Span>();
  /** Negotiated at initialize (2025), or claimed by each request (2026-07-28). */
  #protocolVersion?: string;
  /** A 2025-11-25 HTTP session's id (mcp.session.id); none over stdio and for 2026-07-28 requests. */
  readonly #sessionId?: string;

  constructor(inner: MessageTransport, telemetry: Telemetry, transport: NetworkTransport, sessionId?: string) {
    this.#inner = inner;
    this.#telemetry = telemetry;
    this.#transport = transport;
    this.#sessionId = sessionId;
    inner.claim = (message, origin) => {
      this.#inbound(message, origin);
      return this.claim?.(message, origin) ?? false;
    };
    inner.onclose = () => {
      this.#endAll();
      this.onclose?.();
    };
    inner.onerror = (error) => this.onerror?.(error);
  }

  /** The SERVER span of the client's request `id` while it is being served: the parent of what it sends servers. */
  spanOf(id: RequestId | undefined): Span | undefined {
    return id === undefined ? undefined : this.#spans.get(id);
  }

  get relay(): MessageTransport["relay"] {
    return this.#inner.relay;
  }

  set heard(heard: MessageTransport["heard"]) {
    this.#inner.heard = heard;
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  close(): Promise<void> {
    this.#endAll();
    return this.#inner.close();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (!("method" in message) && "id" in message) this.#answered(message);
    return this.#inner.send(message, options);
  }

  #inbound(message: JSONRPCMessage, origin: MessageOrigin | undefined): void {
    if (!("method" in message)) return;
    if (!("id" in message)) {
      if (message.method === "notifications/cancelled") this.#cancelled(message.params);
      return;
    }
    const claimed = knownVersion(claimedVersion(message.params));
    if (claimed !== undefined) this.#protocolVersion = claimed;
    const peer = { transport: this.#transport, protocolVersion: this.#protocolVersion, sessionId: this.#sessionId };
    // The HTTP request's own traceparent is a link: the MCP parent is the one in _meta.
    const headers = originHeaders(origin);
    // jsonrpc.request.id is the client's id, not the one a 2026-07-28 hub passes the request on under.
    const asSent = origin?.clientId === undefined ? message : { ...message, id: origin.clientId };
    const span = this.#telemetry.serverSpan(spanRequest(asSent, this.knownTool), peer, headers && { httpHeaders: headers });
    // A reused id: the older request is over as far as its span can tell.
    this.#spans.get(message.id)?.end();
    if (this.#spans.size >= MAX_OPEN_SPANS) this.#endAll();
    this.#spans.set(message.id, span);
  }

  #answered(message: JSONRPCMessage): void {
    const id = (message as { id: RequestId }).id;
    const span = this.#spans.get(id);
    if (!span) return;
    this.#spans.delete(id);
    if ("error" in message) return span.fail(message.error);
    const result = (message as { result?: { protocolVersion?: unknown } }).result;
    // The initialize result says the revision the session speaks: its own span and every later one
    // carry it. Read once only: a tool's result is its server's bytes, and a look would parse them.
    if (this.#protocolVersion === undefined && typeof result?.protocolVersion === "string") {
      this.#protocolVersion = result.protocolVersion;
      span.setAttribute(MCP_PROTOCOL_VERSION, result.protocolVersion);
    }
    span.end(unreadResult(result));
  }

  /** A cancelled request gets no answer (the MCP spec): its span ends here. */
  #cancelled(params: unknown): void {
    const id = (params as { requestId?: RequestId } | undefined)?.requestId;
    const span = id === undefined ? undefined : this.#spans.get(id);
    if (!span) return;
    this.#spans.delete(id!);
    span.fail(new DOMException("The client cancelled the request", "AbortError"));
  }

  #endAll(): void {
    for (const span of this.#spans.values()) span.fail(new DOMException("The session ended before the answer", "AbortError"));
    this.#spans.clear();
  }
}
