/**
 * The configuration in force, as one replaceable thing: everything that serves reads `current`
 * when it needs it (never a copy kept from the start), and hears of a replacement through
 * onChange. Replaced only with a configuration that loaded and validated whole (see watch.ts).
 */
import type { WorkbenchConfig } from "./types.ts";

export type ConfigListener = (next: WorkbenchConfig, previous: WorkbenchConfig) => void;

export class LiveConfig {
  #current: WorkbenchConfig;
  readonly #listeners = new Set<ConfigListener>();

  constructor(initial: WorkbenchConfig) {
    this.#current = initial;
  }

  /** A configuration that never changes is a live one that is never replaced. */
  static of(config: WorkbenchConfig | LiveConfig): LiveConfig {
    return config instanceof LiveConfig ? config : new LiveConfig(config);
  }

  get current(): WorkbenchConfig {
    return this.#current;
  }

  /** Called in the order they were added, synchronously, after `current` is the new one. */
  onChange(listener: ConfigListener): () => void {
    const once = (next: WorkbenchConfig, previous: WorkbenchConfig) => listener(next, previous);
    this.#listeners.add(once);
    return () => this.#listeners.delete(once);
  }

  /** Puts `next` in force and tells every listener; a listener that throws does not stop the others. */
  replace(next: WorkbenchConfig): Error[] {
    const previous = this.#current;
    this.#current = next;
    const failed: Error[] = [];
    for (const listener of [...this.#listeners]) {
      try {
        listener(next, previous);
      } catch (error) {
        failed.push(error instanceof Error ? error : new Error(String(error)));
      }
    }
    return failed;
  }

  /**
   * A configuration made from this one as it changes (a session's granted toolboxes): replaced
   * each time this one is, until stop(). The same object when `map` keeps every configuration as it is.
   */
  view(map: (config: WorkbenchConfig) => WorkbenchConfig): { view: LiveConfig; stop: () => void } {
    const first = map(this.#current);
    if (first === this.#current) return { view: this, stop: () => {} };
    const view = new LiveConfig(first);
    return { view, stop: this.onChange((next) => view.replace(map(next))) };
  }
}
