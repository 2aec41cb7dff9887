/**
 * A 2025-11-25 session's transport as the session's gate wants it: the SDK's web-standard server
 * transport, with what it lacks. Progress from the tool-call lane names no request: its token says
 * which one, so that it goes on that request's stream and not the GET one. A notification of no
 * request (a list changed, a resource updated) goes on the GET stream when the client holds it
 * here, else to `elsewhere` (the replica that holds it, see relayed-notices.ts).
 */
import type { JSONRPCMessage, RequestId, TransportSendOptions } from "../../protocol/sdk.ts";
import type { WebStandardStreamableHTTPServerTransport } from "../../protocol/sdk-http.ts";
import type { MessageOrigin, MessageTransport } from "../../transport/message-transport.ts";
import { PlainRequests } from "./plain-requests.ts";

export class SessionTransport implements MessageTransport {
  claim?: (message: JSONRPCMessage, origin?: MessageOrigin) => boolean;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #http: WebStandardStreamableHTTPServerTransport;
  readonly #progress = new Map<string | number, RequestId>();
  /** The requests answered here, not by the SDK's transport. */
  readonly plain = new PlainRequests((message, origin) => this.claim?.(message, origin));
  /** Takes a notification of no request when the GET stream is not here: true when it did. */
  elsewhere?: (message: JSONRPCMessage) => boolean;

  constructor(http: WebStandardStreamableHTTPServerTransport) {
    this.#http = http;
    http.onmessage = (message, extra) => {
      const token = progressTokenOf(message);
      if (token !== undefined) this.#progress.set(token, (message as { id: RequestId }).id);
      this.claim?.(message, extra);
      if ("method" in message && message.method === "notifications/cancelled") {
        this.#cancelled(message.params?.requestId as RequestId | undefined);
      }
    };
    http.onclose = () => (this.plain.close(), this.onclose?.());
    http.onerror = (error) => this.onerror?.(error);
  }

  start(): Promise<void> {
    return this.#http.start();
  }

  /**
   * A cancelled request gets no answer, so its HTTP response is ended here: else it stays open as
   * long as the client reads it (the SDK's client reads until an answer), holding one of the
   * client's requests in flight for good, and keeping its id taken.
   */
  #cancelled(id: RequestId | undefined): void {
    if (id === undefined) return;
    this.plain.cancelled(id);
    this.#http.closeSSEStream(id);
    for (const [token, of] of this.#progress) if (of === id) this.#progress.delete(token);
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.plain.took(message, options?.relatedRequestId)) return;
    let related = options?.relatedRequestId;
    if ("method" in message && message.method === "notifications/progress" && related === undefined) {
      related = this.#progress.get((message.params as { progressToken: string | number }).progressToken);
    }
    if ("id" in message && !("method" in message)) {
      for (const [token, id] of this.#progress) if (id === (message as { id?: RequestId }).id) this.#progress.delete(token);
    }
    if (related === undefined && "method" in message && !("id" in message) && this.elsewhere?.(message)) return;
    try {
      await this.#http.send(message, related === undefined ? options : { ...options, relatedRequestId: related });
    } catch {
      // The client closed the request's stream: its answer has nowhere to go (the call still ran).
    }
  }

  close(): Promise<void> {
    this.plain.close();
    return this.#http.close();
  }
}

function progressTokenOf(message: JSONRPCMessage): string | number | undefined {
  if (!("method" in message) || !("id" in message)) return undefined;
  const token = (message.params as { _meta?: { progressToken?: unknown } } | undefined)?._meta?.progressToken;
  return typeof token === "string" || typeof token === "number" ? token : undefined;
}
