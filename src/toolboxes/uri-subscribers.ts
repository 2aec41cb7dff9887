/**
 * Who subscribed to each resource URI of one server: each subscriber is a session's registry.
 * While any URI has one, the server's idle clock does not run (shared-server.ts).
 */
export class UriSubscribers {
  readonly #by = new Map<string, Set<unknown>>();

  /** URIs with a subscriber. */
  get size(): number {
    return this.#by.size;
  }

  /** The URIs with a subscriber. */
  keys(): IterableIterator<string> {
    return this.#by.keys();
  }

  get(uri: string): ReadonlySet<unknown> | undefined {
    return this.#by.get(uri);
  }

  add(uri: string, by: unknown): void {
    const subscribers = this.#by.get(uri) ?? new Set();
    subscribers.add(by);
    this.#by.set(uri, subscribers);
  }

  /** `by` unsubscribed; true when nobody else is still subscribed to the URI. */
  remove(uri: string, by: unknown): boolean {
    const subscribers = this.#by.get(uri);
    subscribers?.delete(by);
    if (subscribers?.size) return false;
    this.#by.delete(uri);
    return true;
  }
}
