/** What a remote link throws, in a module of its own: the server session checks them without loading the SDK's HTTP code. */
import type { JSONRPCMessage } from "../../protocol/sdk.ts";
import type { ServerLink } from "./link.ts";

/** The session the server gave is unknown to it now (it expired or the server restarted). */
export class SessionExpired extends Error {
  constructor() {
    super("the server ended the session (HTTP 404)");
    this.name = "SessionExpired";
  }
}

/** The server refused one message (an HTTP error status): that request fails, the link stays. */
export class MessageRefused extends Error {
  override readonly name = "MessageRefused";
}

/**
 * Sends on the link. A request a remote server refused alone (an HTTP error status) is answered to
 * `answer` like a JSON-RPC error, so the call fails with the reason; a link that is gone throws.
 */
export function sendOrAnswer(link: ServerLink, message: JSONRPCMessage, answer: (message: JSONRPCMessage) => void): Promise<void> {
  // Not async: the send's own promise is passed on (one step less on every call's way, issue 42).
  let sent: Promise<void>;
  try {
    sent = link.transport.send(message);
  } catch (error) {
    sent = Promise.reject(error);
  }
  return sent.catch((error) => {
    const id = "id" in message ? message.id : undefined;
    if (!(error instanceof MessageRefused) || id === undefined) throw error;
    answer({ jsonrpc: "2.0", id, error: { code: -32603, message: error.message } });
  });
}
