/**
 * Which of our requests a Streamable HTTP server's request was made within: one that comes on the
 * SSE stream answering a POST belongs to that POST's request (a server sends it there because it
 * is for that request). The SDK's transport reads every stream without saying which one a message
 * came on, so its fetch is wrapped here: the events answering each POST that carries a request are
 * looked at as they pass on to the SDK, and each server request among them is noted with the
 * POST's request id, before the SDK can hand it on.
 */
import type { FetchLike, RequestId } from "../../protocol/sdk.ts";
import { concatBytes } from "../../transport/line-splitter.ts";

/** An event larger than this is not looked at (a result, not a question): its bytes pass untouched. */
export const MAX_LOOKED_AT = 4 * 1024 * 1024;
/** Notes kept at most: a server request no handler asks about (a ping) is dropped eventually. */
const MAX_NOTES = 1_024;
const LF = 0x0a;
const CR = 0x0d;
const DATA = new TextEncoder().encode("data:");
/** How the lane and the 2026-07-28 layer write a request: the id comes before the arguments. */
const OUR_REQUEST = /^\{"jsonrpc":"2\.0","id":("(?:[^"\\]|\\.)*"|-?\d+),"method":"/;

export class StreamOwners {
  /** The server's request id → the id of our request on whose stream it came. */
  readonly #notes = new Map<RequestId, RequestId>();

  /** The request of ours the server's request `id` came within; forgotten once asked. */
  take(id: RequestId): RequestId | undefined {
    const owner = this.#notes.get(id);
    this.#notes.delete(id);
    return owner;
  }

  /** `inner`, with the event stream answering each request's POST watched. */
  watch(inner: FetchLike): FetchLike {
    return async (input, init) => {
      const response = await inner(input, init);
      const owner = init?.method === "POST" && typeof init.body === "string" ? requestIdOf(init.body) : undefined;
      const type = response.headers.get("content-type") ?? "";
      if (owner === undefined || !response.ok || !response.body || !type.includes("text/event-stream")) return response;
      const events = new EventWatcher((id) => this.#note(id, owner));
      const body = response.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          events.push(chunk);
          controller.enqueue(chunk);
        },
      }));
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    };
  }

  #note(id: RequestId, owner: RequestId): void {
    this.#notes.delete(id);
    this.#notes.set(id, owner);
    if (this.#notes.size > MAX_NOTES) this.#notes.delete(this.#notes.keys().next().value!);
  }
}

/** The id of the request a POST body carries; undefined for a response or a notification. */
export function requestIdOf(body: string): RequestId | undefined {
  const ours = OUR_REQUEST.exec(body);
  if (ours) return JSON.parse(ours[1]) as RequestId;
  if (!body.includes('"method"')) return undefined;
  try {
    const message = JSON.parse(body) as { id?: unknown; method?: unknown };
    const { id } = message;
    return typeof message.method === "string" && (typeof id === "string" || typeof id === "number") ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads SSE events from byte chunks (lines end with CR, LF or CRLF; an empty line ends an event;
 * `data:` lines make its data) and reports the id of each JSON-RPC request among them.
 */
export class EventWatcher {
  readonly #found: (id: RequestId) => void;
  /** The current line's bytes, as pieces of the chunks. */
  #line: Uint8Array[] = [];
  #lineBytes = 0;
  /** The last line ended with CR: an LF right after it ends nothing more. */
  #afterCr = false;
  #data: Uint8Array[] = [];
  #dataBytes = 0;

  constructor(found: (id: RequestId) => void) {
    this.#found = found;
  }

  push(chunk: Uint8Array): void {
    let start = 0;
    if (this.#afterCr && chunk.length > 0) {
      this.#afterCr = false;
      if (chunk[0] === LF) start = 1;
    }
    while (start < chunk.length) {
      const lf = chunk.indexOf(LF, start);
      const cr = chunk.indexOf(CR, start);
      const end = cr >= 0 && (lf < 0 || cr < lf) ? cr : lf;
      if (end < 0) {
        this.#append(chunk.subarray(start));
        return;
      }
      this.#append(chunk.subarray(start, end));
      this.#endLine();
      start = end + 1;
      if (chunk[end] === CR) {
        if (start === chunk.length) this.#afterCr = true;
        else if (chunk[start] === LF) start++;
      }
    }
  }

  #append(piece: Uint8Array): void {
    if (piece.length === 0) return;
    this.#lineBytes += piece.length;
    // A line too large to look at keeps being counted, not kept.
    if (this.#lineBytes + this.#dataBytes <= MAX_LOOKED_AT) this.#line.push(piece);
  }

  #endLine(): void {
    const tooLarge = this.#lineBytes + this.#dataBytes > MAX_LOOKED_AT;
    const line = this.#line.length === 1 ? this.#line[0] : concatBytes(this.#line);
    const empty = this.#lineBytes === 0;
    this.#line = [];
    this.#lineBytes = 0;
    if (empty) return this.#endEvent();
    if (tooLarge) {
      this.#dataBytes = MAX_LOOKED_AT + 1;
      this.#data = [];
      return;
    }
    if (!startsWith(line, DATA)) return;
    const value = line.subarray(line[DATA.length] === 0x20 ? DATA.length + 1 : DATA.length);
    // Data lines are joined by a line feed.
    this.#data.push(this.#data.length > 0 ? concatBytes([Uint8Array.of(LF), value]) : value);
    this.#dataBytes += value.length + 1;
  }

  #endEvent(): void {
    const data = this.#data;
    const looked = this.#dataBytes <= MAX_LOOKED_AT;
    this.#data = [];
    this.#dataBytes = 0;
    if (!looked || data.length === 0) return;
    // Not JSON, or no request: nothing found (the SDK reports what it cannot read).
    const id = requestIdOf(new TextDecoder().decode(data.length === 1 ? data[0] : concatBytes(data)));
    if (id !== undefined) this.#found(id);
  }
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}
