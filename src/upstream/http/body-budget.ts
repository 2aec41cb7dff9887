/**
 * The request bodies a client has in flight over HTTP, bounded in bytes (issue 38). A body read is
 * held, parsed, until its answer is sent: 250 calls of 3.9 MB for a slow server held 3 GB. A
 * request whose client holds the bound already waits before its body is read, in order, until the
 * client's earlier answers are sent; past the wait it is refused with 503. A waiting body is still
 * partly taken in by the runtime (measured: 2 to 3 MB each for bodies of 4 MB, 100 of them 350 to
 * 435 MiB in all), so the line is bounded too, by the same bytes declared: a request that finds it
 * full is refused at once, and its body is never taken in. A small body (SMALL_BODY_BYTES) is
 * counted but never waits, so bodies that stall hold up only large ones. Each client has its own
 * bounds: one client's calls never hold up another's.
 */

/** Bytes of request bodies one client may have in flight (read, and not yet answered). */
export const DEFAULT_MAX_BODY_BYTES_IN_FLIGHT = 16 * 1024 * 1024;
/** A body declared this long or shorter never waits (it is counted all the same): see endpoint.ts. */
export const SMALL_BODY_BYTES = 64 * 1024;
/** How long a request may wait for its client's bodies in flight to drain: a call's own default timeout. */
export const BODY_WAIT_MS = 60_000;

interface Waiter {
  bytes: number;
  grant: () => void;
}

interface Client {
  held: number;
  waiting: Waiter[];
  /** Bytes declared by the waiting requests. */
  queued: number;
}

export class BodyBudget {
  readonly #max: number;
  readonly #waitMs: number;
  readonly #clients = new Map<string, Client>();

  constructor(max = DEFAULT_MAX_BODY_BYTES_IN_FLIGHT, waitMs = BODY_WAIT_MS) {
    this.#max = max;
    this.#waitMs = waitMs;
  }

  /**
   * Takes `bytes` (the body's declared length, else the most a body may have) for `client` once it
   * holds less than the bound and earlier requests have had their turn: the release to call when
   * the answer is sent, or undefined when the line was full, the wait ran out or the request went away.
   */
  async enter(client: string, bytes: number, signal: AbortSignal): Promise<(() => void) | undefined> {
    const entry = this.#entry(client);
    if (entry.waiting.length === 0 && entry.held < this.#max) {
      entry.held += bytes;
      return this.#release(client, entry, bytes);
    }
    if (entry.waiting.length > 0 && entry.queued + bytes > this.#max) {
      this.#next(client, entry);
      return undefined;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    let waiter: Waiter;
    const granted = await new Promise<boolean>((resolve) => {
      waiter = { bytes, grant: () => resolve(true) };
      // Out of the line at once: a turn given after this would be counted for no one.
      const leave = () => {
        const at = entry.waiting.indexOf(waiter);
        if (at === -1) return;
        entry.waiting.splice(at, 1);
        entry.queued -= bytes;
        resolve(false);
      };
      entry.waiting.push(waiter);
      entry.queued += bytes;
      timer = setTimeout(leave, this.#waitMs);
      signal.addEventListener("abort", leave, { once: true });
    });
    clearTimeout(timer);
    if (granted) return this.#release(client, entry, bytes);
    this.#next(client, entry);
    return undefined;
  }

  /** Holds `bytes` for `client` at once (a body already let in, counted at its real length); the release. */
  hold(client: string, bytes: number): () => void {
    const entry = this.#entry(client);
    entry.held += bytes;
    return this.#release(client, entry, bytes);
  }

  /** Bytes held for `client` now, for tests. */
  heldBy(client: string): number {
    return this.#clients.get(client)?.held ?? 0;
  }

  #release(client: string, entry: Client, bytes: number): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      entry.held -= bytes;
      this.#next(client, entry);
    };
  }

  /** Grants the waiting requests their turns while there is room; forgets a client that holds nothing. */
  #next(client: string, entry: Client): void {
    while (entry.held < this.#max && entry.waiting.length > 0) {
      const waiter = entry.waiting.shift()!;
      entry.queued -= waiter.bytes;
      entry.held += waiter.bytes;
      waiter.grant();
    }
    if (entry.held === 0 && entry.waiting.length === 0 && this.#clients.get(client) === entry) this.#clients.delete(client);
  }

  #entry(client: string): Client {
    let entry = this.#clients.get(client);
    if (!entry) this.#clients.set(client, entry = { held: 0, waiting: [], queued: 0 });
    return entry;
  }
}
