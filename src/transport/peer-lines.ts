/**
 * Small pieces of reading a peer: what a log line may quote of a message (its method or id, short),
 * the id of a message too large to parse, read from its edges, the rest of a stream discarded, and
 * the error for a message that was not delivered.
 */
import { INVALID_REQUEST } from "./jsonrpc-check.ts";

/** Reads to the end of the stream (or until it is cancelled) and drops what comes. */
export async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  try {
    while (!(await reader.read()).done) {
      // Discarded: nobody waits for a closed connection's messages.
    }
  } catch {
    // Cancelled or broken: either way there is nothing more to read.
  }
}

/** A method or id for a log line: quoted, and short whatever the peer sent. */
export function clip(value: string | number): string {
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * The SDK runs notification handlers one microtask later but responses at once, and a response
 * ends its request's progress handler: a progress notification read in the same chunk as the
 * response would be dropped. Letting pending microtasks run after each notification keeps order.
 */
export async function settled(): Promise<void> {
  await Promise.resolve();
}

/** JSON-RPC's "invalid request": the peer sent what we cannot accept. */
export const MESSAGE_TOO_LARGE = INVALID_REQUEST;

/**
 * The id of a message, read from the edges of its text: the SDK (and most others) put it last,
 * some put it first. A request names its method before its (large) params; a notification has
 * no id at the top level, so a trailing `"id": ...}` is not mistaken for one.
 */
export function messageId(head: string, tail: string): { id: string | number; request: boolean } | undefined {
  const request = /^\s*\{[^{]*"method"\s*:/.test(head);
  const found = tail.match(/"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/) ??
    head.match(/^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/);
  if (!found) return undefined;
  const id = found[1].startsWith('"') ? JSON.parse(found[1]) as string : Number(found[1]);
  return { id, request };
}

/**
 * A message from the peer that was not delivered. `tooDeep` marks one nested deeper than any
 * parser here can walk: from a server, that means the connection cannot be trusted any more.
 */
export class RefusedMessage extends Error {
  constructor(message: string, readonly tooDeep: boolean) {
    super(message);
    this.name = "RefusedMessage";
  }
}
