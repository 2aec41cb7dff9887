/**
 * What a session's gate needs of the client's connection: messages in (through `claim`), messages
 * out, and its end. StreamTransport (stdio) is one; an HTTP session is another, and it needs to
 * know which request a message goes with (`relatedRequestId`) to pick the response stream.
 */
import type { JSONRPCMessage, RequestId, TransportSendOptions } from "../protocol/sdk.ts";

/**
 * Where a client's message came from, for what reads more than the message (telemetry): the HTTP
 * request, or the SDK transport's note of it (`requestInfo`, its headers as a record). Passed as the
 * transport has it, so that nothing is made for a message when no one reads it (a 2026-07-28 hub
 * makes one small object a request, to say the client's own id).
 */
export type MessageOrigin =
  & (
    | { readonly headers: Pick<Headers, "get"> }
    | { readonly requestInfo?: { readonly headers: Readonly<Record<string, string | string[] | undefined>> } }
  )
  & {
    /** The id the client gave the request, when the transport passes it on under one of its own (a 2026-07-28 hub). */
    readonly clientId?: RequestId;
  };

/** The origin's HTTP headers, if it came over HTTP. */
export function originHeaders(origin: MessageOrigin | undefined): Pick<Headers, "get"> | undefined {
  if (origin === undefined) return undefined;
  if ("headers" in origin) return origin.headers;
  const record = origin.requestInfo?.headers;
  if (record === undefined) return undefined;
  return {
    get: (name) => {
      const value = record[name.toLowerCase()];
      return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
    },
  };
}

export interface MessageTransport {
  /** Takes each message from the client (with its origin, over HTTP); the gate sets it and takes them all. */
  claim?: (message: JSONRPCMessage, origin?: MessageOrigin) => boolean;
  /**
   * Takes a 2026-07-28 notification that no listen here asked for (a list changed, a resource
   * updated), for the replica that holds the client's listen, if any (http/relayed-notices.ts).
   */
  relay?: (message: JSONRPCMessage) => void;
  /** Set by the gate: what another replica relayed, given to this client's listens here. */
  heard?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  start(): Promise<void>;
  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void>;
  close(): Promise<void>;
}
