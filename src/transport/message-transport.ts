/**
 * What a session's gate needs of the client's connection: messages in (through `claim`), messages
 * out, and its end. StreamTransport (stdio) is one; an HTTP session is another, and it needs to
 * know which request a message goes with (`relatedRequestId`) to pick the response stream.
 */
import type { JSONRPCMessage, TransportSendOptions } from "../protocol/sdk.ts";

/** Where a client's message came from, for what reads more than the message (telemetry): an HTTP request's headers. */
export interface MessageOrigin {
  readonly headers?: Pick<Headers, "get">;
}

export interface MessageTransport {
  /** Takes each message from the client (with its origin, over HTTP); the gate sets it and takes them all. */
  claim?: (message: JSONRPCMessage, origin?: MessageOrigin) => boolean;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  start(): Promise<void>;
  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void>;
  close(): Promise<void>;
}
