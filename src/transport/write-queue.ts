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
   * While more than `highWaterMark` bytes wait, or a sender waits for its turn, `gate` (when given)
   * is held, until they are down to half of it and no one waits.
   */
  backlog?: { gate?: FlowGate; highWaterMark: number };
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
}

interface Waiter {
  go: () => void;
  signal: AbortSignal;
  onAbort: () => void;
}

export class WriteQueue {
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #options: WriteQueueOptions;
  /** Encoded frames waiting for the write under way to finish. */
  #frames: Frame[] = [];
  /** Bytes queued or being written, with what they hold. */
  #bytes = 0;
  /** Senders waiting for the backlog to be under its bound, in order. */
  readonly #waiters: Waiter[] = [];
  #flushing?: Promise<void>;

  constructor(writer: WritableStreamDefaultWriter<Uint8Array>, options: WriteQueueOptions) {
    this.#writer = writer;
    this.#options = options;
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
    for (let index = 0; index < frames.length; index++) {
      const last = index === frames.length - 1;
      this.#frames.push({ bytes: frames[index], answers: last ? answers : undefined, held: last ? held : 0, request, first: index === 0 });
      this.#bytes += frames[index].length + (last ? held : 0);
    }
    const backlog = this.#options.backlog;
    if (backlog && this.#bytes > backlog.highWaterMark) backlog.gate?.hold(this);
  }

  /**
   * Calls `go` (which must push at once) when the backlog is under its bound and every earlier
   * sender has had its turn: at once when it is. A sender whose `signal` aborts leaves the line.
   */
  whenRoom(go: () => void, signal: AbortSignal): void {
    const backlog = this.#options.backlog;
    if (!backlog || (this.#waiters.length === 0 && this.#bytes < backlog.highWaterMark)) return go();
    if (signal.aborted) return;
    const waiter: Waiter = {
      go,
      signal,
      onAbort: () => {
        const at = this.#waiters.indexOf(waiter);
        if (at !== -1) this.#waiters.splice(at, 1);
        this.#admit();
      },
    };
    signal.addEventListener("abort", waiter.onAbort, { once: true });
    this.#waiters.push(waiter);
    backlog.gate?.hold(this);
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
    for (const frame of frames.splice(start, end - start)) this.#bytes -= frame.bytes.length + frame.held;
    this.#admit();
    return true;
  }

  /** Resolves when everything queued so far is written: one promise, whoever waits. */
  flush(): Promise<void> {
    return this.#flushing ??= this.#write();
  }

  /** Drops what is queued (the peer is going): nothing waits for it any more. */
  clear(): void {
    this.#frames = [];
    for (const waiter of this.#waiters.splice(0)) waiter.signal.removeEventListener("abort", waiter.onAbort);
    this.#options.backlog?.gate?.release(this);
  }

  /** Gives the waiting senders their turns while there is room; lets the gate go when all is down. */
  #admit(): void {
    const backlog = this.#options.backlog;
    if (!backlog) return;
    while (this.#waiters.length > 0 && this.#bytes < backlog.highWaterMark) {
      const waiter = this.#waiters.shift()!;
      waiter.signal.removeEventListener("abort", waiter.onAbort);
      waiter.go();
    }
    if (this.#waiters.length === 0 && this.#bytes <= backlog.highWaterMark / 2) backlog.gate?.release(this);
  }

  /**
   * Writes what is queued, joining the small messages that arrived during the previous write: under
   * load one write carries many messages, and a write costs far more than a copy. A large message
   * is written alone: copying it saves no write, and while the peer is slow a joined backlog would
   * be a second copy of everything queued.
   */
  async #write(): Promise<void> {
    try {
      while (this.#frames.length > 0) {
        const [batch, answers, held] = this.#nextBatch();
        await this.#writer.write(batch);
        this.#bytes -= batch.length + held;
        this.#options.written(answers);
        this.#admit();
      }
    } catch (error) {
      this.#options.failed(error);
      throw error;
    } finally {
      this.#flushing = undefined;
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
    while (count < frames.length && frames[count].bytes.length < WRITTEN_ALONE_BYTES && bytes + frames[count].bytes.length <= MAX_BATCH_BYTES) {
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
