/**
 * An MCP transport over a pair of web streams, framed as newline-delimited JSON-RPC. It serves
 * our own stdio and every child's, so it is the only framing code in the product.
 */
import type { Transport } from "../sdk.ts";
import type { JSONRPCMessage } from "../sdk.ts";
import { concatBytes, DEFAULT_MAX_LINE_BYTES, LineSplitter } from "./line-splitter.ts";
import { messageOf } from "../errors.ts";

export interface StreamTransportOptions {
  /** Largest message accepted, in bytes (default 64 MiB). */
  maxMessageBytes?: number;
  /**
   * After the peer ends its stream, how long to keep answering the requests it already sent
   * before closing (default 0: close at once). A client that writes requests and then closes
   * its end, as a shell pipe does, still gets its answers.
   */
  drainMs?: number;
  /**
   * Whether an ignored line is quoted in the error (default true). A server's stray output is
   * worth seeing; a client's line may hold a tool's arguments, secrets included: our stdin says
   * only how long it was.
   */
  quoteIgnoredLines?: boolean;
}

/** How long close() waits for the peer to take what is still queued before giving up on it. */
const CLOSE_TIMEOUT_MS = 1_000;

export class StreamTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /**
   * Sees each message before `onmessage` and keeps it by returning true: the tool-call fast
   * lanes take their own traffic here, and the SDK gets the rest.
   */
  claim?: (message: JSONRPCMessage) => boolean;

  readonly #readable: ReadableStream<Uint8Array>;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #splitter: LineSplitter;
  readonly #decoder = new TextDecoder();
  readonly #encoder = new TextEncoder();
  #reader?: ReadableStreamDefaultReader<Uint8Array>;
  readonly #drainMs: number;
  readonly #quoteIgnoredLines: boolean;
  /** Ids of the peer's requests that have no response yet. */
  readonly #unanswered = new Set<string | number>();
  #drained?: () => void;
  #started = false;
  #closed = false;
  /** Encoded messages waiting for the write under way to finish. */
  #queue: Uint8Array[] = [];
  #flushing?: Promise<void>;

  constructor(
    readable: ReadableStream<Uint8Array>,
    writable: WritableStream<Uint8Array>,
    options: StreamTransportOptions = {},
  ) {
    this.#readable = readable;
    this.#writer = writable.getWriter();
    this.#splitter = new LineSplitter(options.maxMessageBytes ?? DEFAULT_MAX_LINE_BYTES);
    this.#drainMs = options.drainMs ?? 0;
    this.#quoteIgnoredLines = options.quoteIgnoredLines ?? true;
    // A peer that goes away must not surface as an unhandled rejection.
    this.#writer.closed.catch(() => {});
  }

  start(): Promise<void> {
    if (this.#started) throw new Error("StreamTransport already started");
    this.#started = true;
    this.#reader = this.#readable.getReader();
    void this.#readLoop(this.#reader);
    return Promise.resolve();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) throw new Error("Transport is closed");
    this.#queue.push(this.#encoder.encode(JSON.stringify(message) + "\n"));
    this.#flushing ??= this.#flush();
    await this.#flushing;
    if (this.#drainMs > 0 && "id" in message && !("method" in message)) {
      this.#unanswered.delete(message.id as string | number);
      if (this.#unanswered.size === 0) this.#drained?.();
    }
  }

  /**
   * Writes what is queued, joining the messages that arrived during the previous write into one:
   * under load one write carries many messages, and a write costs far more than a copy.
   */
  async #flush(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.length === 1 ? this.#queue[0] : concatBytes(this.#queue);
        this.#queue = [];
        await this.#writer.write(batch);
      }
    } finally {
      this.#flushing = undefined;
    }
  }

  /** Bounded: a peer that stopped reading cannot hold our shutdown; what it did not take is dropped. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#queue = [];
    const closing = Promise.allSettled([this.#reader?.cancel(), this.#writer.close()]);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<"expired">((resolve) => (timer = setTimeout(() => resolve("expired"), CLOSE_TIMEOUT_MS)));
    // abort() itself waits for the write under way, so it is not awaited: it ends when the peer
    // goes (a killed child's pipe breaks; our own stdout goes with the process).
    if (await Promise.race([closing, expired]) === "expired") void this.#writer.abort().catch(() => {});
    clearTimeout(timer);
    this.onclose?.();
  }

  async #readLoop(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    try {
      while (!this.#closed) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const event of this.#splitter.push(value)) {
          if (event.kind === "oversized") this.#refuseOversized(event);
          else if (this.#deliver(event.bytes)) await settled();
        }
      }
    } catch (error) {
      if (!this.#closed) this.#reportError(`Read failed: ${messageOf(error)}`);
    }
    await this.#drain();
    await this.close();
  }

  /** Waits (bounded) until every request the peer sent has been answered. */
  async #drain(): Promise<void> {
    if (this.#unanswered.size === 0 || this.#closed) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await new Promise<void>((resolve) => {
      this.#drained = resolve;
      timer = setTimeout(resolve, this.#drainMs);
    });
    clearTimeout(timer);
  }

  /** Parses and hands over one line; true when it was a notification. */
  #deliver(bytes: Uint8Array): boolean {
    const text = this.#decoder.decode(bytes);
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.#reportError(`Ignored a line that is not JSON: ${this.#describe(text)}`);
      return false;
    }
    if (!isJsonRpcMessage(message)) {
      this.#reportError(`Ignored a line that is not JSON-RPC 2.0: ${this.#describe(text)}`);
      return false;
    }
    if (this.#drainMs > 0) this.#track(message);
    this.#dispatch(message);
    return "method" in message && !("id" in message);
  }

  /**
   * Drops a message over the limit. When it is a response, the request it answers fails with a
   * clear error instead of waiting for a timeout, and the connection stays usable.
   */
  #refuseOversized(event: { bytes: number; head: Uint8Array; tail: Uint8Array }): void {
    const limit = this.#splitter.maxLineBytes;
    const message = `Message of ${event.bytes} bytes exceeds the limit of ${limit} bytes`;
    const found = messageId(this.#decoder.decode(event.head), this.#decoder.decode(event.tail));
    this.#reportError(`${message} and was dropped`);
    if (!found) return;
    const error = { jsonrpc: "2.0" as const, id: found.id, error: { code: MESSAGE_TOO_LARGE, message } };
    // A request too large is answered to the peer; a response too large fails our own request.
    if (found.request) void this.send(error).catch(() => {});
    else this.#dispatch(error);
  }

  #describe(text: string): string {
    if (!this.#quoteIgnoredLines) return `${text.length} characters`;
    return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}...` : text);
  }

  /** Requests the peer waits for; one it cancelled gets no answer (MCP), so it is not waited for. */
  #track(message: JSONRPCMessage): void {
    if ("method" in message && "id" in message) this.#unanswered.add(message.id);
    if ("method" in message && message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if ((typeof id === "string" || typeof id === "number") && this.#unanswered.delete(id) && this.#unanswered.size === 0) {
        this.#drained?.();
      }
    }
  }

  #dispatch(message: JSONRPCMessage): void {
    if (!this.claim?.(message)) this.onmessage?.(message);
  }

  #reportError(text: string): void {
    this.onerror?.(new Error(text));
  }
}

/**
 * A structural check only: the SDK validates each message's params and results against its
 * schemas later, and doing that here too would parse every large message twice.
 */
function isJsonRpcMessage(value: unknown): value is JSONRPCMessage {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== "2.0") return false;
  if (typeof message.method === "string") return true;
  const hasId = typeof message.id === "string" || typeof message.id === "number";
  return hasId && ("result" in message || "error" in message);
}

/**
 * The SDK runs notification handlers one microtask later but responses at once, and a response
 * ends its request's progress handler: a progress notification read in the same chunk as the
 * response would be dropped. Letting pending microtasks run after each notification keeps order.
 */
async function settled(): Promise<void> {
  await Promise.resolve();
}

/** JSON-RPC's "invalid request": the peer sent what we cannot accept. */
const MESSAGE_TOO_LARGE = -32600;

/**
 * The id of a message, read from the edges of its text: the SDK (and most others) put it last,
 * some put it first. A request names its method before its (large) params; a notification has
 * no id at the top level, so a trailing `"id": ...}` is not mistaken for one.
 */
function messageId(head: string, tail: string): { id: string | number; request: boolean } | undefined {
  const request = /^\s*\{[^{]*"method"\s*:/.test(head);
  const found = tail.match(/"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/) ??
    head.match(/^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/);
  if (!found) return undefined;
  const id = found[1].startsWith('"') ? JSON.parse(found[1]) as string : Number(found[1]);
  return { id, request };
}
