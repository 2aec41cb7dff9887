/**
 * A client's cancellation of one tools/call, with its AbortSignal made only when someone asks for
 * it (issue 42): the call's lane watches it directly, and an AbortController per call with the
 * lane's listener on its signal were about 5% of the relay's time. A call that asks for questions,
 * approval, a task or an audit record reads `signal` and gets one, aborted if the client already
 * cancelled.
 */

/** What a cancellation tells the one that watches it (the lane's call). */
export interface CancelWatcher {
  handleEvent(): void;
}

export class CallCancel {
  #controller?: AbortController;
  #watcher?: CancelWatcher;
  aborted = false;
  reason: unknown;

  /** The signal, made now if it was not yet. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.reason);
    }
    return this.#controller.signal;
  }

  /** The client cancelled: the signal (if made) aborts, and the watcher hears of it; once. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.#controller?.abort(reason);
    this.#watcher?.handleEvent();
  }

  /** One watcher at a time (the call in flight); undefined when it is over. */
  watch(watcher: CancelWatcher | undefined): void {
    this.#watcher = watcher;
  }
}
