/**
 * A task run on request, once at a time: requests that come while it runs ask for one more run
 * after it, not one each (a server that says "my list changed" five times is listed twice).
 */
export class Rerun {
  readonly #task: () => Promise<boolean>;
  #running?: Promise<void>;
  #again = false;

  /** `task` resolves false to stop (its results are no longer wanted, or it failed). */
  constructor(task: () => Promise<boolean>) {
    this.#task = task;
  }

  request(): void {
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = (async () => {
      do this.#again = false;
      while (await this.#task() && this.#again);
    })().finally(() => (this.#running = undefined));
  }

  /** Resolves once the runs asked for so far are done. */
  settled(): Promise<void> {
    return this.#running ?? Promise.resolve();
  }
}
