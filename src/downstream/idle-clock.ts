/**
 * A call's clocks: the timer the lane's timeouts run on (the real one, or a test's), and the idle
 * timer of one call, which every sign of life restarts and which stops while the client answers
 * one of the call's questions (time spent waiting on the client is not the server's).
 */

/** The clock the timeouts run on: the real one, or a test's (as RestartPolicy takes `now`). */
export interface Timers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const REAL_TIMERS: Timers = {
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export class IdleClock {
  readonly #timers: Timers;
  readonly #ms: number;
  readonly #onIdle: () => void;
  /** False once the call is over: a question answered after it does not start the timer again. */
  readonly #running: () => boolean;
  #timer: unknown;
  #holds = 0;

  constructor(timers: Timers, ms: number, onIdle: () => void, running: () => boolean) {
    this.#timers = timers;
    this.#ms = ms;
    this.#onIdle = onIdle;
    this.#running = running;
  }

  /** Starts the idle time over (unless a question is out). */
  restart(): void {
    this.#timers.clear(this.#timer);
    if (this.#holds === 0) this.#timer = this.#timers.set(this.#onIdle, this.#ms);
  }

  /** Stops the idle time until the returned release is called; a second release does nothing. */
  hold(): () => void {
    this.#holds++;
    this.restart();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#holds--;
      if (this.#running()) this.restart();
    };
  }

  stop(): void {
    this.#timers.clear(this.#timer);
  }
}
