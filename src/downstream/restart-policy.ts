/**
 * When a lost server may be started again: failures in a row (crashes and failed restarts, until a
 * call succeeds) space the attempts out, 0.5 s after the second failure and doubling (capped at
 * 30 s, which only a larger MAX_FAILURES would reach: with 5 the waits are 0, 0.5, 1 and 2 s);
 * after MAX_FAILURES the server stays down until its toolbox is opened again.
 */
export const MAX_FAILURES = 5;
const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 30_000;

export class RestartPolicy {
  failures = 0;
  lastReason = "";
  #notBefore = 0;

  constructor(private readonly now: () => number = Date.now) {}

  get givenUp(): boolean {
    return this.failures >= MAX_FAILURES;
  }

  /** Milliseconds to wait before the next attempt. */
  get delayMs(): number {
    return Math.max(0, this.#notBefore - this.now());
  }

  failed(reason: string): void {
    this.failures++;
    this.lastReason = reason;
    // The first failure is restarted at once: that is the transparent recovery from one crash.
    const delay = this.failures < 2 ? 0 : Math.min(FIRST_DELAY_MS * 2 ** (this.failures - 2), MAX_DELAY_MS);
    this.#notBefore = this.now() + delay;
  }

  /** A call went through: the server is healthy again. */
  succeeded(): void {
    this.failures = 0;
    this.#notBefore = 0;
  }

  reset(): void {
    this.succeeded();
    this.lastReason = "";
  }

  /** Resolves when an attempt is allowed, or at once when the signal aborts. */
  waitForTurn(signal?: AbortSignal): Promise<void> {
    const delay = this.delayMs;
    if (delay === 0 || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, delay);
      signal?.addEventListener("abort", done, { once: true });
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        resolve();
      }
    });
  }
}
