/**
 * The writing side of a StreamTransport: frames queued while a write is under way, the small ones
 * joined into one write, and the backlog counted, so that a peer that does not read holds a gate
 * (and, through it, whatever feeds us) instead of our memory.
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
  /** While more than `highWaterMark` bytes wait, `gate` is held, until they are down to half of it. */
  backlog?: { gate: FlowGate; highWaterMark: number };
  /** The frames that answer these requests (the last frame of each response) were written. */
  written(answers: (RequestId | undefined)[]): void;
  /** A write failed: the peer is gone. */
  failed(error: unknown): void;
}

export class WriteQueue {
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #options: WriteQueueOptions;
  /** Encoded frames waiting for the write under way to finish. */
  #frames: Uint8Array[] = [];
  /** For each frame queued, the request it answers when it is a response's last frame. */
  #answers: (RequestId | undefined)[] = [];
  /** For each frame queued, what it holds beyond its bytes (on a message's last frame). */
  #held: number[] = [];
  /** Bytes queued or being written, with what they hold. */
  #bytes = 0;
  #flushing?: Promise<void>;

  constructor(writer: WritableStreamDefaultWriter<Uint8Array>, options: WriteQueueOptions) {
    this.#writer = writer;
    this.#options = options;
  }

  /**
   * Queues one message's frames; `answers` is the request it answers, if it is a response. `held`
   * is what the message stands for beyond its bytes (a page's kept result, see held-bytes.ts): it
   * counts in the backlog until the message's last frame is written.
   */
  push(frames: Uint8Array[], answers: RequestId | undefined, held = 0): void {
    for (let index = 0; index < frames.length; index++) {
      const last = index === frames.length - 1;
      this.#frames.push(frames[index]);
      this.#answers.push(last ? answers : undefined);
      this.#held.push(last ? held : 0);
      this.#bytes += frames[index].length + (last ? held : 0);
    }
    const backlog = this.#options.backlog;
    if (backlog && this.#bytes > backlog.highWaterMark) backlog.gate.hold(this);
  }

  /** Resolves when everything queued so far is written: one promise, whoever waits. */
  flush(): Promise<void> {
    return this.#flushing ??= this.#write();
  }

  /** Drops what is queued (the peer is going): nothing waits for it any more. */
  clear(): void {
    this.#frames = [];
    this.#answers = [];
    this.#held = [];
    this.#options.backlog?.gate.release(this);
  }

  /**
   * Writes what is queued, joining the small messages that arrived during the previous write: under
   * load one write carries many messages, and a write costs far more than a copy. A large message
   * is written alone: copying it saves no write, and while the peer is slow a joined backlog would
   * be a second copy of everything queued.
   */
  async #write(): Promise<void> {
    const backlog = this.#options.backlog;
    try {
      while (this.#frames.length > 0) {
        const [batch, answers, held] = this.#nextBatch();
        await this.#writer.write(batch);
        this.#bytes -= batch.length + held;
        this.#options.written(answers);
        if (backlog && this.#bytes <= backlog.highWaterMark / 2) backlog.gate.release(this);
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
    if (frames[0].length >= WRITTEN_ALONE_BYTES) return [frames.shift()!, [this.#answers.shift()], this.#held.shift()!];
    let count = 1;
    let bytes = frames[0].length;
    while (count < frames.length && frames[count].length < WRITTEN_ALONE_BYTES && bytes + frames[count].length <= MAX_BATCH_BYTES) {
      bytes += frames[count++].length;
    }
    const taken = frames.splice(0, count);
    const held = this.#held.splice(0, count).reduce((sum, one) => sum + one, 0);
    return [count === 1 ? taken[0] : concatBytes(taken), this.#answers.splice(0, count), held];
  }
}
