/**
 * The room a peer has for what we send it (issue 38): the bytes on their way, counted against a
 * bound, and the line of senders that wait for room, in order. A stdio peer's write queue counts
 * the frames not yet written (write-queue.ts); a remote server's link counts the requests whose
 * POST it has not answered yet (http-link.ts). Past the bound the gate, when given, is held
 * (whatever reads for us waits on it) until the bytes are down to half of it and no one waits.
 */
import type { FlowGate } from "./flow-gate.ts";

/** A signal, or how to make it: a sender with room at once never needs one (issue 42). */
export type SignalSource = AbortSignal | (() => AbortSignal);

interface Waiter {
  go: () => void;
  signal: AbortSignal;
  onAbort: () => void;
}

export class ByteRoom {
  readonly highWaterMark: number;
  readonly #gate?: FlowGate;
  #bytes = 0;
  readonly #waiters: Waiter[] = [];

  constructor(highWaterMark: number, gate?: FlowGate) {
    this.highWaterMark = highWaterMark;
    this.#gate = gate;
  }

  /** Bytes on their way now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Senders waiting for their turn. */
  get waiting(): number {
    return this.#waiters.length;
  }

  /** Counts bytes that go now, whether or not there is room (a sender that cannot wait). */
  take(bytes: number): void {
    this.#bytes += bytes;
    if (this.#bytes > this.highWaterMark) this.#gate?.hold(this);
  }

  /** Bytes that are through (or dropped): the next senders in line get their turns. */
  give(bytes: number): void {
    this.#bytes -= bytes;
    this.#admit();
  }

  /**
   * Calls `go` (which must take its bytes at once) when the bytes are under the bound and every
   * earlier sender has had its turn: at once when they are. A sender whose `signal` aborts leaves
   * the line (given as a function, it is made only when the sender must wait). One larger than the
   * whole bound still goes, alone.
   */
  whenRoom(go: () => void, source: SignalSource): void {
    if (this.#waiters.length === 0 && this.#bytes < this.highWaterMark) return go();
    const signal = typeof source === "function" ? source() : source;
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
    this.#gate?.hold(this);
  }

  /** The peer is going: no one waits for it any more, and the gate is let go. */
  clear(): void {
    for (const waiter of this.#waiters.splice(0)) waiter.signal.removeEventListener("abort", waiter.onAbort);
    this.#gate?.release(this);
  }

  /** Gives the waiting senders their turns while there is room; lets the gate go when all is down. */
  #admit(): void {
    while (this.#waiters.length > 0 && this.#bytes < this.highWaterMark) {
      const waiter = this.#waiters.shift()!;
      waiter.signal.removeEventListener("abort", waiter.onAbort);
      waiter.go();
    }
    if (this.#waiters.length === 0 && this.#bytes <= this.highWaterMark / 2) this.#gate?.release(this);
  }
}
