/**
 * An MCP transport over a pair of web streams, framed as newline-delimited JSON-RPC. It serves
 * our own stdio and every child's, so it is the only framing code in the product.
 */
import type { JSONRPCMessage, RequestId, Transport } from "../sdk.ts";
import { concatBytes, DEFAULT_MAX_LINE_BYTES, isBlank, LineSplitter } from "./line-splitter.ts";
import { type Checked, checkMessage, INVALID_REQUEST, PARSE_ERROR, type Refused, refuseChecked } from "./jsonrpc-check.ts";
import { MAX_JSON_DEPTH, mayNestDeeperThan, nestedDeeperThan } from "./json-depth.ts";
import { scanJson } from "./json-scan.ts";
import { handOn, rawResponse, rawResponseFrame } from "./raw-json.ts";
import { FlowGate } from "./flow-gate.ts";
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
  /**
   * Answer what JSON-RPC says to answer (a parse error, an invalid request, a request whose id is
   * already in flight) and drop responses to requests we never sent: for the side where we serve
   * a client. A server's stray output is only logged, never answered: it might answer back.
   */
  answerInvalid?: boolean;
  /**
   * While more than `highWaterMark` bytes wait to be written to the peer, hold `gate`, until they
   * are down to half of it.
   */
  backlog?: { gate: FlowGate; highWaterMark: number };
  /**
   * Stop reading the peer while this many of its requests are in flight (read and not yet
   * answered, or answered and not yet written), until they are down to half of it: a peer that
   * writes requests without reading the answers then waits in its pipe, not in our memory. Each
   * request of ours the peer has still to answer raises the bound by one (with answerInvalid).
   */
  maxRequestsInFlight?: number;
  /** Reading from the peer waits while this gate (or any of these gates) is held. */
  readGate?: FlowGate | readonly FlowGate[];
  /**
   * After close, keep reading what the peer writes, and discard it, until the stream ends or
   * stopDraining(): a child still finishing its work would fail its last writes (EPIPE) if its
   * stdout were closed under it.
   */
  drainAfterClose?: boolean;
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

/** Messages are joined into one write up to this size. */
const MAX_BATCH_BYTES = 256 * 1024;
/**
 * A frame (or a piece of a raw result's frame) of this size or more is written alone: joining it
 * saves few writes, and a 32 MiB result relayed in pieces would leave 32 MiB of joined copies for
 * the collector (measured: 15 to 25 MiB more at the peak).
 */
const WRITTEN_ALONE_BYTES = 32 * 1024;

/**
 * From this size a line is checked in its pieces and a response's result kept as its bytes (see
 * raw-json.ts); below it, parsing is cheaper than scanning in script and the copies are small.
 */
export const RAW_FROM_BYTES = 1024 * 1024;

const NEWLINE = new Uint8Array([0x0a]);

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
  readonly #answerInvalid: boolean;
  readonly #backlog?: { gate: FlowGate; highWaterMark: number };
  readonly #readGates: readonly FlowGate[];
  readonly #drainAfterClose: boolean;
  readonly #maxInFlight: number;
  /** Held while the peer has maxRequestsInFlight requests unanswered; among #readGates. */
  readonly #busy = new FlowGate();
  /** Ids of the peer's requests that have no response yet. */
  readonly #unanswered = new Set<RequestId>();
  /** Ids of our requests to the peer that have no response yet (kept with answerInvalid). */
  readonly #ours = new Set<RequestId>();
  #drained?: () => void;
  #started = false;
  #closed = false;
  /** Encoded messages waiting for the write under way to finish. */
  #queue: Uint8Array[] = [];
  /** For each frame queued, the request it answers when it is a response's last frame. */
  #queueAnswers: (RequestId | undefined)[] = [];
  /** Bytes queued or being written. */
  #queuedBytes = 0;
  #flushing?: Promise<void>;

  constructor(
    readable: ReadableStream<Uint8Array>,
    writable: WritableStream<Uint8Array>,
    options: StreamTransportOptions = {},
  ) {
    this.#readable = readable;
    this.#writer = writable.getWriter();
    this.#splitter = new LineSplitter(options.maxMessageBytes ?? DEFAULT_MAX_LINE_BYTES, RAW_FROM_BYTES);
    this.#drainMs = options.drainMs ?? 0;
    this.#quoteIgnoredLines = options.quoteIgnoredLines ?? true;
    this.#answerInvalid = options.answerInvalid ?? false;
    this.#backlog = options.backlog;
    const gates = options.readGate === undefined ? [] : Array.isArray(options.readGate) ? options.readGate : [options.readGate as FlowGate];
    this.#readGates = [this.#busy, ...gates];
    this.#maxInFlight = options.maxRequestsInFlight ?? Infinity;
    this.#drainAfterClose = options.drainAfterClose ?? false;
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

  /** Not async: a sender that waits for the write holds only the one promise all waiters share. */
  send(message: JSONRPCMessage): Promise<void> {
    try {
      this.#enqueue(message);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#flushing ??= this.#flush();
  }

  #enqueue(message: JSONRPCMessage): void {
    if (this.#closed) throw new Error("Transport is closed");
    // The newline goes as a piece of its own: appended to a large text, it would cost a copy of it.
    const frames = rawResponseFrame(message, this.#encoder) ?? [this.#encoder.encode(JSON.stringify(message)), NEWLINE];
    // A response's request is in flight until its last frame is written (see #written).
    const answers = "id" in message && !("method" in message) ? message.id as RequestId : undefined;
    for (let index = 0; index < frames.length; index++) {
      this.#queue.push(frames[index]);
      this.#queueAnswers.push(index === frames.length - 1 ? answers : undefined);
      this.#queuedBytes += frames[index].length;
    }
    if (this.#backlog && this.#queuedBytes > this.#backlog.highWaterMark) this.#backlog.gate.hold(this);
    if (this.#answerInvalid && "method" in message && "id" in message) {
      this.#ours.add(message.id);
      // The peer's answer must be read: a call waiting on it is not one that fills our memory.
      if (this.#unanswered.size < this.#inFlightLimit()) this.#busy.release(this);
    }
  }

  /** The requests whose answers were just written are no longer in flight. */
  #written(answers: (RequestId | undefined)[]): void {
    for (const id of answers) if (id !== undefined) this.#unanswered.delete(id);
    this.#inFlightChanged();
  }

  /**
   * maxRequestsInFlight, plus one for each request of ours the peer has not answered yet: a call
   * that waits on the peer's answer (a server's elicitation) must not stop us reading that answer.
   */
  #inFlightLimit(): number {
    return this.#maxInFlight + this.#ours.size;
  }

  #inFlightChanged(): void {
    if (this.#unanswered.size <= this.#maxInFlight / 2 + this.#ours.size) this.#busy.release(this);
    if (this.#unanswered.size === 0) this.#drained?.();
  }

  /**
   * Writes what is queued, joining the small messages that arrived during the previous write: under
   * load one write carries many messages, and a write costs far more than a copy. A large message
   * is written alone: copying it saves no write, and while the peer is slow a joined backlog would
   * be a second copy of everything queued.
   */
  async #flush(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const [batch, answers] = this.#nextBatch();
        await this.#writer.write(batch);
        this.#queuedBytes -= batch.length;
        this.#written(answers);
        if (this.#backlog && this.#queuedBytes <= this.#backlog.highWaterMark / 2) this.#backlog.gate.release(this);
      }
    } catch (error) {
      // A peer that closed its end is gone: once said, and the connection ends as if it had left.
      if (!this.#closed) {
        this.#reportError(`Write failed: ${messageOf(error)}`);
        void this.close();
      }
      throw error;
    } finally {
      this.#flushing = undefined;
    }
  }

  #nextBatch(): [Uint8Array, (RequestId | undefined)[]] {
    if (this.#queue[0].length >= WRITTEN_ALONE_BYTES) return [this.#queue.shift()!, [this.#queueAnswers.shift()]];
    let count = 1;
    let bytes = this.#queue[0].length;
    while (
      count < this.#queue.length && this.#queue[count].length < WRITTEN_ALONE_BYTES &&
      bytes + this.#queue[count].length <= MAX_BATCH_BYTES
    ) {
      bytes += this.#queue[count++].length;
    }
    const taken = this.#queue.splice(0, count);
    return [count === 1 ? taken[0] : concatBytes(taken), this.#queueAnswers.splice(0, count)];
  }

  /** Bounded: a peer that stopped reading cannot hold our shutdown; what it did not take is dropped. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#queue = [];
    this.#queueAnswers = [];
    this.#backlog?.gate.release(this);
    this.#busy.release(this);
    const reading = this.#drainAfterClose ? undefined : this.#reader?.cancel();
    const closing = Promise.allSettled([reading, this.#writer.close()]);
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
        // Checked after the read: a read already under way when the gate closed delivers nothing.
        for (let gate = this.#passage(); gate; gate = this.#passage()) await gate;
        if (this.#closed) break;
        for (const event of this.#splitter.push(value)) {
          // Also between the lines of one read: a read may hold hundreds of small requests.
          for (let gate = this.#passage(); gate && !this.#closed; gate = this.#passage()) await gate;
          if (this.#closed) break;
          if (event.kind === "oversized") this.#refuseOversized(event);
          else if (event.kind === "pieces" ? this.#deliverPieces(event.pieces, event.bytes) : this.#deliver(event.bytes)) {
            await settled();
          }
        }
      }
    } catch (error) {
      if (!this.#closed) this.#reportError(`Read failed: ${messageOf(error)}`);
    }
    await this.#drain();
    await this.close();
    if (this.#drainAfterClose) await discardRest(reader);
  }

  /** Stops the discarding read after close (the child has exited; a grandchild may hold the pipe). */
  stopDraining(): void {
    if (this.#closed) void this.#reader?.cancel().catch(() => {});
  }

  /** The first held read gate's passage; undefined when all are open. */
  #passage(): Promise<void> | undefined {
    for (const gate of this.#readGates) {
      const passage = gate.passage();
      if (passage) return passage;
    }
    return undefined;
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

  /** Parses, checks and hands over one line; true when it was a notification. */
  #deliver(bytes: Uint8Array): boolean {
    let value: unknown;
    try {
      value = JSON.parse(this.#decoder.decode(bytes));
    } catch {
      this.#reportError(`Ignored a line that is not JSON: ${this.#describe(bytes)}`);
      if (this.#answerInvalid) this.#answer({ id: null, code: PARSE_ERROR, message: "Parse error: the line is not valid JSON" });
      return false;
    }
    return this.#accept(value, bytes.length, false);
  }

  /**
   * A long line: a response whose result can stay raw goes on without being decoded or parsed
   * (scanJson has checked its grammar and depth); any other message is joined and parsed.
   */
  #deliverPieces(pieces: Uint8Array[], bytes: number): boolean {
    const scan = scanJson(pieces, MAX_JSON_DEPTH);
    const message = scan.ok ? rawResponse(pieces, scan.members) : undefined;
    if (message) return this.#accept(message, bytes, true);
    const line = concatBytes(pieces);
    // Blank lines are skipped, whatever their length.
    return !isBlank(line) && this.#deliver(line);
  }

  /** Checks and hands over one parsed message; true when it was a notification. */
  #accept(value: unknown, bytes: number, depthChecked: boolean): boolean {
    const checked = this.#check(value, bytes, depthChecked);
    if (checked.kind === "refused") {
      this.#refuse(checked, bytes);
      return false;
    }
    if (checked.kind === "request" && this.#unanswered.add(checked.id).size >= this.#inFlightLimit()) this.#busy.hold(this);
    if (checked.kind === "notification" && checked.method === "notifications/cancelled") this.#forget(checked.message);
    if (checked.kind === "response") this.#ours.delete(checked.id);
    this.#dispatch(checked.message);
    return checked.kind === "notification";
  }

  /**
   * The JSON-RPC rules read only the top level of the value; the depth walk then decides before
   * anything recursive sees it (the SDK's schemas, JSON.stringify); then the ids.
   */
  #check(value: unknown, bytes: number, depthChecked: boolean): Checked {
    const checked = checkMessage(value);
    if (!depthChecked && mayNestDeeperThan(bytes) && nestedDeeperThan(value)) {
      const text = `Invalid Request: nested deeper than ${MAX_JSON_DEPTH} levels`;
      return { ...this.#withFreeId(refuseChecked(checked, INVALID_REQUEST, text)), tooDeep: true };
    }
    if (checked.kind === "response" && this.#answerInvalid && !this.#ours.has(checked.id)) {
      return refuseChecked(checked, INVALID_REQUEST, "Invalid Request: a response to no request of ours");
    }
    return this.#withFreeId(checked);
  }

  /**
   * A request (or refusal) whose id is already in flight is refused with id null: an answer with
   * that id would settle the request in flight, and its cancellation would reach the wrong one.
   */
  #withFreeId<T extends Checked>(checked: T): T | Refused {
    const id = checked.kind === "request" || (checked.kind === "refused" && checked.answer) ? checked.id : null;
    if (!this.#answerInvalid || id === null || !this.#unanswered.has(id)) return checked;
    return refuseChecked(checked, INVALID_REQUEST, `Invalid Request: id ${clip(id)} is already in use by a request in flight`, null);
  }

  /** Logs what was refused (never its content) and answers it when JSON-RPC says so. */
  #refuse(refused: Refused, bytes: number): void {
    const what = [
      refused.method === undefined ? undefined : `method ${clip(refused.method)}`,
      refused.id === null ? undefined : `id ${clip(refused.id)}`,
      `${bytes} bytes`,
    ].filter(Boolean).join(", ");
    this.onerror?.(new RefusedMessage(`Refused a message (${what}): ${refused.message}`, refused.tooDeep === true));
    if (this.#answerInvalid && refused.answer) this.#answer(refused);
  }

  #answer(error: { id: RequestId | null; code: number; message: string }): void {
    const { id, code, message } = error;
    // The SDK's types have no id null; JSON-RPC requires it when the id could not be read.
    void this.send({ jsonrpc: "2.0", id, error: { code, message } } as JSONRPCMessage).catch(() => {});
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
    // A request too large is answered to the peer; a response too large fails our own request.
    if (!found.request) this.#dispatch({ jsonrpc: "2.0", id: found.id, error: { code: MESSAGE_TOO_LARGE, message } });
    else if (!this.#unanswered.has(found.id)) this.#answer({ id: found.id, code: MESSAGE_TOO_LARGE, message });
    else this.#answer({ id: null, code: MESSAGE_TOO_LARGE, message });
  }

  #describe(bytes: Uint8Array): string {
    if (!this.#quoteIgnoredLines) return `${bytes.length} bytes`;
    const text = this.#decoder.decode(bytes.subarray(0, 320));
    return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}...` : text);
  }

  /** A request the peer cancelled gets no answer (MCP), so it is not waited for any more. */
  #forget(message: JSONRPCMessage): void {
    const id = ((message as { params?: { requestId?: unknown } }).params)?.requestId;
    if ((typeof id === "string" || typeof id === "number") && this.#unanswered.delete(id)) this.#inFlightChanged();
  }

  #dispatch(message: JSONRPCMessage): void {
    handOn(message, this);
  }

  #reportError(text: string): void {
    this.onerror?.(new Error(text));
  }
}

/** Reads to the end of the stream (or until it is cancelled) and drops what comes. */
async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  try {
    while (!(await reader.read()).done) {
      // Discarded: nobody waits for a closed connection's messages.
    }
  } catch {
    // Cancelled or broken: either way there is nothing more to read.
  }
}

/** A method or id for a log line: quoted, and short whatever the peer sent. */
function clip(value: string | number): string {
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
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
const MESSAGE_TOO_LARGE = INVALID_REQUEST;

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
