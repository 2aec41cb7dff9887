/**
 * An MCP transport over a pair of web streams, framed as newline-delimited JSON-RPC. It serves
 * our own stdio and every child's, so it is the only framing code in the product.
 */
import type { JSONRPCMessage, RequestId, Transport } from "../protocol/sdk.ts";
import { concatBytes, DEFAULT_MAX_LINE_BYTES, isBlank, LineSplitter } from "./line-splitter.ts";
import { WriteQueue } from "./write-queue.ts";
import { InFlight } from "./in-flight.ts";
import { type Checked, checkMessage, INVALID_REQUEST, PARSE_ERROR, type Refused, refuseChecked } from "./jsonrpc-check.ts";
import { MAX_JSON_DEPTH, mayNestDeeperThan, nestedDeeperThan } from "./json-depth.ts";
import { scanJson } from "./json-scan.ts";
import { handOn, rawResponse, rawResponseFrame } from "./raw-json.ts";
import { FlowGate } from "./flow-gate.ts";
import { bytesHeldBy } from "./held-bytes.ts";
import { messageOf } from "../protocol/errors.ts";
import type { StreamTransportOptions } from "./stream-options.ts";
import { clip, discardRest, MESSAGE_TOO_LARGE, messageId, RefusedMessage, settled } from "./peer-lines.ts";

export type { StreamTransportOptions };
export { RefusedMessage };

/** How a line that is not JSON is reported (onerror), followed by its start, quoted. */
export const NOT_JSON = "Ignored a line that is not JSON: ";

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
  readonly #readGates: readonly FlowGate[];
  readonly #drainAfterClose: boolean;
  /** The requests in flight both ways; its gate is among #readGates. */
  readonly #inFlight: InFlight;
  #started = false;
  #closed = false;
  readonly #writes: WriteQueue;

  constructor(readable: ReadableStream<Uint8Array>, writable: WritableStream<Uint8Array>, options: StreamTransportOptions = {}) {
    this.#readable = readable;
    this.#writer = writable.getWriter();
    this.#splitter = new LineSplitter(options.maxMessageBytes ?? DEFAULT_MAX_LINE_BYTES, RAW_FROM_BYTES);
    this.#drainMs = options.drainMs ?? 0;
    this.#quoteIgnoredLines = options.quoteIgnoredLines ?? true;
    this.#answerInvalid = options.answerInvalid ?? false;
    this.#writes = new WriteQueue(this.#writer, {
      backlog: options.backlog,
      written: (answers) => this.#inFlight.done(answers),
      // A peer that closed its end is gone: once said, and the connection ends as if it had left.
      failed: (error) => {
        if (this.#closed) return;
        this.#reportError(`Write failed: ${messageOf(error)}`);
        void this.close();
      },
    });
    const gates = options.readGate === undefined ? [] : Array.isArray(options.readGate) ? options.readGate : [options.readGate as FlowGate];
    this.#inFlight = new InFlight(options.maxRequestsInFlight);
    this.#readGates = [this.#inFlight.gate, ...gates];
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

  /** Not async: a sender that waits for its write holds only the promise of its flush (write-queue.ts). */
  send(message: JSONRPCMessage): Promise<void> {
    try {
      this.#enqueue(message);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#writes.flush();
  }

  #enqueue(message: JSONRPCMessage): void {
    if (this.#closed) throw new Error("Transport is closed");
    // The newline goes as a piece of its own: appended to a large text, it would cost a copy of it.
    const frames = rawResponseFrame(message, this.#encoder) ?? [this.#encoder.encode(JSON.stringify(message)), NEWLINE];
    // A response's request is in flight until its last frame is written (see #written).
    const answers = "id" in message && !("method" in message) ? message.id as RequestId : undefined;
    const request = "id" in message && "method" in message ? message.id : undefined;
    this.#writes.push(frames, answers, answers === undefined ? 0 : bytesHeldBy(message), request);
    if (this.#answerInvalid) this.#inFlight.sent(message);
  }

  /** Where a sender that can wait asks for its turn, or takes back a request still queued (issue 38). */
  get writes(): Pick<WriteQueue, "whenRoom" | "withdraw"> {
    return this.#writes;
  }

  /** Bounded: a peer that stopped reading cannot hold our shutdown; what it did not take is dropped. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#writes.clear();
    this.#inFlight.gate.release(this);
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
    if (!this.#closed) await this.#inFlight.drained(this.#drainMs);
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

  /** Parses, checks and hands over one line; true when it was a notification. */
  #deliver(bytes: Uint8Array): boolean {
    let value: unknown;
    try {
      value = JSON.parse(this.#decoder.decode(bytes));
    } catch {
      this.#reportError(`${NOT_JSON}${this.#describe(bytes)}`);
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
    if (checked.kind === "request") this.#inFlight.read(checked.id);
    if (checked.kind === "notification" && checked.method === "notifications/cancelled") this.#forget(checked.message);
    if (checked.kind === "response") this.#inFlight.answered(checked.id);
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
    if (checked.kind === "response" && this.#answerInvalid && !this.#inFlight.isOurs(checked.id)) {
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
    if (!this.#answerInvalid || id === null || !this.#inFlight.has(id)) return checked;
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
    else if (!this.#inFlight.has(found.id)) this.#answer({ id: found.id, code: MESSAGE_TOO_LARGE, message });
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
    if ((typeof id === "string" || typeof id === "number") && this.#inFlight.has(id)) this.#inFlight.done([id]);
  }

  #dispatch(message: JSONRPCMessage): void {
    handOn(message, this);
  }

  #reportError(text: string): void {
    this.onerror?.(new Error(text));
  }
}
