/**
 * The fetch the SDK's HTTP transports use for one remote server, with what the stdio link does
 * for a child's stdout: a message larger than maxMessageBytes ends the response (an SSE event is
 * measured from one blank line to the next, a JSON body whole), and reading waits while the
 * client is not taking what we send (the read gate), so TCP pushes back on the server.
 */
import type { FetchLike } from "../../protocol/sdk.ts";
import type { FlowGate } from "../../transport/flow-gate.ts";

const LF = 0x0a;
const CR = 0x0d;

export class MessageTooLarge extends Error {
  constructor(limit: number) {
    super(`the server sent a message larger than ${limit} bytes (maxMessageBytes)`);
    this.name = "MessageTooLarge";
  }
}

export function boundedFetch(maxMessageBytes: number, readGate?: FlowGate, inner: FetchLike = fetch): FetchLike {
  return async (input, init) => {
    const response = await inner(input, init);
    if (!response.body) return response;
    const type = response.headers.get("content-type") ?? "";
    const events = type.includes("text/event-stream");
    const body = response.body.pipeThrough(limitStream(maxMessageBytes, events, readGate));
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

function limitStream(limit: number, events: boolean, readGate?: FlowGate): TransformStream<Uint8Array, Uint8Array> {
  let size = 0;
  // An SSE event ends at an empty line: two line ends in a row (CR, LF or CRLF each).
  let lineEnded = false;
  let lastWasCr = false;
  return new TransformStream({
    async transform(chunk, controller) {
      const gate = readGate?.passage();
      if (gate) await gate;
      if (!events) {
        size += chunk.byteLength;
        if (size > limit) throw new MessageTooLarge(limit);
        controller.enqueue(chunk);
        return;
      }
      for (const byte of chunk) {
        if (byte === LF || byte === CR) {
          const crlf = byte === LF && lastWasCr;
          if (!crlf && lineEnded) size = 0;
          lineEnded = true;
          lastWasCr = byte === CR;
        } else {
          lineEnded = false;
          lastWasCr = false;
          if (++size > limit) throw new MessageTooLarge(limit);
        }
      }
      controller.enqueue(chunk);
    },
  });
}
