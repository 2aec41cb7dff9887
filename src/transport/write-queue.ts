/**
 * The writing side of a StreamTransport: frames queued while a write is under way, the small ones
 * joined into one write, and the backlog counted, so that a peer that does not read holds a gate
 * (and, through it, whatever feeds us) instead of our memory. Senders that can wait (tool calls to
 * a server, issue 38) ask for a turn: past the bound they wait in order, and a request still queued
 * when its caller gives up can be withdrawn before the peer sees any of it.
 */
import type { RequestId } from "../protocol/sdk.ts";
import { concatBytes } from "./line-splitter.ts";
import type { FlowGate } from "./flow-gate.ts";
import { ByteRoom, type SignalSource } from "./byte-room.ts";

export type { SignalSource };

/** Messages are joined into one write up to this size. */
const MAX_BATCH_BYTES = 256 * 1024;
/**
 * A frame (or a piece of a raw result's frame) of this size or more is written alone: joining it
 * saves few writes, and a 32 MiB result relayed in pieces would leave 32 MiB of joined copies for
 * the collector (measured: 15 to 25 MiB more at the peak).
 */
const WRITTEN_ALONE_BYTES = 32 * 1024;

export interface WriteQueueOptions {
  /**
   * The room the frames not yet written count in (byte-room.ts), or its bound: while more than
   * `highWaterMark` bytes wait, or a sender waits for its turn, `gate` (when given) is held, until
   * they are down to half of it and no one waits.
   */
  backlog?: ByteRoom | { gate?: FlowGate; highWaterMark: number };
  /** The frames that answer these requests (the last frame of each response) were written. */
  written(answers: (RequestId | undefined)[]): void;
  /** A write failed: the peer is gone. */
  failed(error: unknown): void;
}

interface Frame {
  bytes: Uint8Array;
  /** The request it answers, on a response's last frame. */
  answers?: RequestId;
  /** What it holds beyond its bytes (on a message's last frame, see held-bytes.ts). */
  held: number;
  /** The request it is part of, when it is one (a frame of it may be withdrawn). */
  request?: RequestId;
  /** The first frame of its message. */
  first: boolean;
  /** Its place in the order frames were pushed (from 1). */
  seq: number;
}

/** A flush that waits for the frames pushed up to `seq`. */
interface Waiter {
  seq: number;
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class WriteQueue {
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #options: WriteQueueOptions;
  /** Encoded frames waiting for the write under way to finish. */
  #frames: Frame[] = [];
  /** Bytes queued or being written, with what they hold. */
  #bytes = 0;
  /** Where those bytes count, and senders wait for room in order; none: no bound. */
  readonly #room?: ByteRoom;
  /** The write loop, while it runs. */
  #writing?: Promise<void>;
  /** The last frame pushed, and the first frame of the batch being written (0: none). */
  #pushed = 0;
  #batchFrom = 0;
  /** Flushes not yet settled, in the order of their frames. */
  #waiters: Waiter[] = [];

  constructor(writer: WritableStreamDefaultWriter<Uint8Array>, options: WriteQueueOptions) {
    this.#writer = writer;
    this.#options = options;
    const backlog = options.backlog;
    this.#room = backlog instanceof ByteRoom ? backlog : backlog && new ByteRoom(backlog.highWaterMark, backlog.gate);
  }

  /** Bytes queued or being written now. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Queues one message's frames; `answers` is the request it answers, if it is a response. `held`
   * is what the message stands for beyond its bytes (a page's kept result, see held-bytes.ts): it
   * counts in the backlog until the message's last frame is written. `request` is its id when it
   * is a request (see withdraw).
   */
  push(frames: Uint8Array[], answers: RequestId | undefined, held = 0, request?: RequestId): void {
    let bytes = 0;
    for (let index = 0; index < frames.length; index++) {
      const last = index === frames.length - 1;
      this.#frames.push({
        bytes: frames[index],
        answers: last ? answers : undefined,
        held: last ? held : 0,
        request,
        first: index === 0,
        seq: ++this.#pushed,
      });
      bytes += frames[index].length + (last ? held : 0);
    }
    this.#bytes += bytes;
    this.#room?.take(bytes);
  }

  /**
   * Calls `go` (which must push at once) when the backlog is under its bound and every earlier
   * sender has had its turn: at once when it is. A sender whose `signal` aborts leaves the line.
   */
  whenRoom(go: () => void, signal: SignalSource): void {
    if (!this.#room) return go();
    this.#room.whenRoom(go, signal);
  }

  /**
   * Takes back a request none of which is written yet; false when it is not queued or its writing
   * has begun (then the peer gets all of it).
   */
  withdraw(request: RequestId): boolean {
    const frames = this.#frames;
    const start = frames.findIndex((frame) => frame.first && frame.request === request);
    if (start === -1) return false;
    let end = start + 1;
    while (end < frames.length && !frames[end].first && frames[end].request === request) end++;
    let bytes = 0;
    for (const frame of frames.splice(start, end - start)) bytes += frame.bytes.length + frame.held;
    this.#given(bytes);
    this.#settle();
    return true;
  }

  /**
   * Resolves when everything queued so far is written (or dropped), not what is queued after it:
   * a sender to a peer that reads slowly while others keep sending would otherwise wait until the
   * queue runs dry, and hold whatever its waiting keeps (a call's whole result, issue 38: 100 calls
   * of 4 MB over HTTP grew the workbench by 6 MB per answered call). Senders with nothing pushed
   * in between share one promise.
   */
  flush(): Promise<void> {
    const seq = this.#pushed;
    if (seq <= this.#doneThrough()) return Promise.resolve();
    this.#writing ??= this.#write();
    const last = this.#waiters.at(-1);
    if (last?.seq === seq) return last.promise;
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const promise = new Promise<void>((done, fail) => (resolve = done, reject = fail));
    this.#waiters.push({ seq, promise, resolve, reject });
    return promise;
  }

  /** Drops what is queued (the peer is going): nothing waits for it any more. */
  clear(): void {
    this.#room?.clear();
    let bytes = 0;
    for (const frame of this.#frames.splice(0)) bytes += frame.bytes.length + frame.held;
    this.#given(bytes);
    this.#settle();
  }

  /** Every frame up to this one is written or dropped. */
  #doneThrough(): number {
    if (this.#batchFrom > 0) return this.#batchFrom - 1;
    return this.#frames.length > 0 ? this.#frames[0].seq - 1 : this.#pushed;
  }

  /** Resolves the flushes whose frames are all written or dropped. */
  #settle(): void {
    const done = this.#doneThrough();
    let count = 0;
    while (count < this.#waiters.length && this.#waiters[count].seq <= done) this.#waiters[count++].resolve();
    if (count > 0) this.#waiters.splice(0, count);
  }

  /** Bytes written or dropped: out of the count, and out of the room. */
  #given(bytes: number): void {
    this.#bytes -= bytes;
    this.#room?.give(bytes);
  }

  /**
   * Writes what is queued, joining the small messages that arrived during the previous write: under
   * load one write carries many messages, and a write costs far more than a copy. A large message
   * is written alone: copying it saves no write, and while the peer is slow a joined backlog would
   * be a second copy of everything queued.
   */
  async #write(): Promise<void> {
    try {
      // One step later: the answers to the requests of one read reach the queue in the same round of
      // microtasks, and go in one write instead of the first alone and the rest after it (issue 42).
      await undefined;
      while (this.#frames.length > 0) {
        this.#batchFrom = this.#frames[0].seq;
        const [batch, answers, held] = this.#nextBatch();
        await this.#writer.write(batch);
        this.#batchFrom = 0;
        this.#options.written(answers);
        this.#given(batch.length + held);
        this.#settle();
      }
    } catch (error) {
      this.#batchFrom = 0;
      for (const waiter of this.#waiters.splice(0)) waiter.reject(error);
      this.#options.failed(error);
    } finally {
      this.#writing = undefined;
    }
  }

  #nextBatch(): [Uint8Array, (RequestId | undefined)[], number] {
    const frames = this.#frames;
    if (frames[0].bytes.length >= WRITTEN_ALONE_BYTES) {
      const frame = frames.shift()!;
      return [frame.bytes, [frame.answers], frame.held];
    }
    let count = 1;
    let bytes = frames[0].bytes.length;
    while (
      count < frames.length && frames[count].bytes.length < WRITTEN_ALONE_BYTES && bytes + frames[count].bytes.length <= MAX_BATCH_BYTES
    ) {
      bytes += frames[count++].bytes.length;
    }
    const taken = frames.splice(0, count);
    let held = 0;
    const answers: (RequestId | undefined)[] = [];
    for (const frame of taken) {
      held += frame.held;
      answers.push(frame.answers);
    }
    return [count === 1 ? taken[0].bytes : concatBytes(taken.map((frame) => frame.bytes)), answers, held];
  }
}
