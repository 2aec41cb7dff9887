/**
 * Backpressure across connections. While a peer is not reading what we write to it, what waits
 * is held in memory; past a high-water mark that peer's transport holds a gate, and every reader
 * that waits on it stops taking more until the backlog drains. Then the pipes fill and the peers
 * block, instead of us growing. Two gates make the relay bounded end to end: the client's
 * backlog holds the one the servers' stdouts (and the client's stdin) wait on, and each server's
 * stdin backlog holds the one the client's stdin waits on. A gate stays held while any of its
 * holders holds it.
 */
export class FlowGate {
  #held?: { promise: Promise<void>; release: () => void };
  readonly #holders = new Set<object>();

  get held(): boolean {
    return this.#held !== undefined;
  }

  hold(holder: object): void {
    this.#holders.add(holder);
    if (this.#held) return;
    let release!: () => void;
    const promise = new Promise<void>((resolve) => (release = resolve));
    this.#held = { promise, release };
  }

  release(holder: object): void {
    if (!this.#holders.delete(holder) || this.#holders.size > 0) return;
    const held = this.#held;
    this.#held = undefined;
    held?.release();
  }

  /** Resolves when the gate is open; undefined when it already is, so readers need not await. */
  passage(): Promise<void> | undefined {
    return this.#held?.promise;
  }
}
