/**
 * A call's clocks: the timer the lane's timeouts run on (the real one, or a test's); one timer for
 * the deadlines of many calls (the lane's); and the idle timer of one call (a task's), which every
 * sign of life restarts and which stops while the client answers one of the call's questions
 * (time spent waiting on the client is not the server's).
 */

/** The clock the timeouts run on: the real one, or a test's (as RestartPolicy takes `now`). */
export interface Timers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
  /** Milliseconds on a clock that only moves forward. */
  now(): number;
}

export const REAL_TIMERS: Timers = {
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  now: () => performance.now(),
};

/**
 * One timer for the deadlines of many calls (issue 42): a call keeps its deadlines as numbers, and
 * the timer is set for the earliest one only. Moving a deadline later (progress) costs nothing; the
 * timer then finds nothing due, `sweep` fails what is due and says when the next deadline is, and
 * the timer is set again for it. Two timers set and three cleared per call were about 6% of the
 * relay's CPU. A deadline is kept to the timer's own precision: the timer is set for it exactly.
 */
export class DeadlineSweep {
  readonly #timers: Timers;
  /** Fails what is due at `now`; returns the earliest deadline left (Infinity: none). */
  readonly #sweep: (now: number) => number;
  #timer: unknown;
  #at = Infinity;

  constructor(timers: Timers, sweep: (now: number) => number) {
    this.#timers = timers;
    this.#sweep = sweep;
  }

  now(): number {
    return this.#timers.now();
  }

  /** A deadline at `at`: the timer fires by then. */
  due(at: number): void {
    if (at >= this.#at) return;
    if (this.#timer !== undefined) this.#timers.clear(this.#timer);
    this.#at = at;
    this.#timer = this.#timers.set(this.#fire, Math.max(0, Math.ceil(at - this.#timers.now())));
  }

  /** Nothing is timed any more: the timer goes (a pending timer would hold the process open). */
  stop(): void {
    if (this.#timer === undefined) return;
    this.#timers.clear(this.#timer);
    this.#timer = undefined;
    this.#at = Infinity;
  }

  readonly #fire = (): void => {
    this.#timer = undefined;
    this.#at = Infinity;
    const next = this.#sweep(this.#timers.now());
    if (next < Infinity) this.due(next);
  };
}

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
