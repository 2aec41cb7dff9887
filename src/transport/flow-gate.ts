/**
 * Backpressure across connections. While the client is not reading our stdout, what waits to be
 * written to it is held in memory; past a high-water mark the client's transport holds this gate,
 * and every reader that waits on it (the client's stdin, each server's stdout) stops taking more
 * until the backlog drains. Then the pipes fill and the peers block, instead of us growing.
 */
export class FlowGate {
  #held?: { promise: Promise<void>; release: () => void };

  get held(): boolean {
    return this.#held !== undefined;
  }

  hold(): void {
    if (this.#held) return;
    let release!: () => void;
    const promise = new Promise<void>((resolve) => (release = resolve));
    this.#held = { promise, release };
  }

  release(): void {
    const held = this.#held;
    this.#held = undefined;
    held?.release();
  }

  /** Resolves when the gate is open; undefined when it already is, so readers need not await. */
  passage(): Promise<void> | undefined {
    return this.#held?.promise;
  }
}
