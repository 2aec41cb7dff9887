/**
 * The request bodies a client has in flight over HTTP, bounded in bytes (issue 38). A body read is
 * held, parsed, until its answer is sent: 250 calls of 3.9 MB for a slow server held 3 GB. A
 * request whose client holds the bound already waits before its body is read, in order, until the
 * client's earlier answers are sent: a client that sends many large calls is slowed, not refused.
 * The line is bounded in time (BODY_WAIT_MS, then 503) and in count, per client and for all
 * clients together (past it, 503 at once, with Retry-After), not in bytes: what a waiting request
 * costs is what the runtime takes in of its unread body before TCP pushes back, which stops at
 * about the same amount whatever the body's length. Measured with 100 unread bodies of 4 MB: Bun
 * takes in 1.3 to 2 MB of each, Deno none; the workbench with 96 of them waiting and 4 being
 * answered peaked at 310 MiB (64 before). So a client's full line (128) costs at most about
 * 250 MiB, all clients' (256) about 500 MiB, when Bun serves; before, the line was bounded by 16 MiB of
 * bodies declared: 91 of 100 calls of 4 MB were refused at once. A small body (SMALL_BODY_BYTES)
 * is counted but never waits, so bodies that stall hold up only large ones. Each client has its
 * own bounds: one client's calls never hold up another's, and one client's line leaves half the
 * line of all to the others.
 */

/** Bytes of request bodies one client may have in flight (read, and not yet answered). */
export const DEFAULT_MAX_BODY_BYTES_IN_FLIGHT = 16 * 1024 * 1024;
/** A body declared this long or shorter never waits (it is counted all the same): see endpoint.ts. */
export const SMALL_BODY_BYTES = 64 * 1024;
/** How long a request may wait for its client's bodies in flight to drain: a call's own default timeout. */
export const BODY_WAIT_MS = 60_000;
/**
 * Requests of one client that may wait at once; one more is refused at once. 128: a client that
 * sends 100 large calls at once is slowed, not refused, and its line costs at most about 250 MiB.
 */
export const DEFAULT_MAX_WAITING_PER_CLIENT = 128;
/** Requests of all clients that may wait at once: two clients' full lines. */
export const DEFAULT_MAX_WAITING = 256;

interface Waiter {
  bytes: number;
  grant: () => void;
}

interface Client {
  held: number;
  waiting: Waiter[];
}

export interface BodyBudgetOptions {
  /** Bytes one client may have in flight (default 16 MiB). */
  max?: number;
  /** How long a request may wait (default BODY_WAIT_MS). */
  waitMs?: number;
  /** Requests of one client that may wait (default 128). */
  maxWaitingPerClient?: number;
  /** Requests of all clients that may wait (default 256). */
  maxWaiting?: number;
}

export class BodyBudget {
  readonly #max: number;
  readonly #waitMs: number;
  readonly #maxWaitingPerClient: number;
  readonly #maxWaiting: number;
  readonly #clients = new Map<string, Client>();
  /** Requests of all clients waiting now. */
  #waiting = 0;

  constructor(options: BodyBudgetOptions = {}) {
    this.#max = options.max ?? DEFAULT_MAX_BODY_BYTES_IN_FLIGHT;
    this.#waitMs = options.waitMs ?? BODY_WAIT_MS;
    this.#maxWaitingPerClient = options.maxWaitingPerClient ?? DEFAULT_MAX_WAITING_PER_CLIENT;
    this.#maxWaiting = options.maxWaiting ?? DEFAULT_MAX_WAITING;
  }

  /**
   * Takes `bytes` (the body's declared length, else the most a body may have) for `client` once it
   * holds less than the bound and earlier requests have had their turn: the release to call when
   * the answer is sent, or "full" when the line was full (the request did not wait), or "waited"
   * when the wait ran out or the request went away.
   */
  async enter(client: string, bytes: number, signal: AbortSignal): Promise<(() => void) | "full" | "waited"> {
    const entry = this.#entry(client);
    if (entry.waiting.length === 0 && entry.held < this.#max) {
      entry.held += bytes;
      return this.#release(client, entry, bytes);
    }
    if (entry.waiting.length >= this.#maxWaitingPerClient || this.#waiting >= this.#maxWaiting) {
      this.#next(client, entry);
      return "full";
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    let waiter: Waiter;
    let leave = () => {};
    const granted = await new Promise<boolean>((resolve) => {
      waiter = { bytes, grant: () => resolve(true) };
      // Out of the line at once: a turn given after this would be counted for no one.
      leave = () => {
        const at = entry.waiting.indexOf(waiter);
        if (at === -1) return;
        entry.waiting.splice(at, 1);
        this.#waiting--;
        resolve(false);
      };
      entry.waiting.push(waiter);
      this.#waiting++;
      timer = setTimeout(leave, this.#waitMs);
      signal.addEventListener("abort", leave, { once: true });
    });
    clearTimeout(timer);
    signal.removeEventListener("abort", leave);
    if (granted) return this.#release(client, entry, bytes);
    this.#next(client, entry);
    return "waited";
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
      this.#waiting--;
      entry.held += waiter.bytes;
      waiter.grant();
    }
    if (entry.held === 0 && entry.waiting.length === 0 && this.#clients.get(client) === entry) this.#clients.delete(client);
  }

  #entry(client: string): Client {
    let entry = this.#clients.get(client);
    if (!entry) this.#clients.set(client, entry = { held: 0, waiting: [] });
    return entry;
  }
}
