/**
 * The store under everything a session keeps (issue 47 §3): plain strings under string keys, behind
 * an async interface, each with an expiry; take-once reads (a single-use approval is taken by one
 * replica only), counters, fields of one key (a session's open toolboxes by name), and a change feed
 * (publish and subscribe). Nothing live goes in: no server session, timer or signal; a replica
 * rebuilds live things from the data. MemoryStore is the default; a store shared by replicas (Redis)
 * is one more implementation, and tests/helpers/store-contract.ts is the contract each one runs.
 */

export interface Store {
  /** The value at `key`; undefined when there is none (or it expired). */
  get(key: string): Promise<string | undefined>;
  /** Puts `value` at `key`, expiring `ttlMs` from now (a field set under it goes with it). */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /** Puts `value` at `key` only when nothing is there; true when it did. */
  add(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** The value at `key`, removed in the same step: of two takers, one gets it. */
  take(key: string): Promise<string | undefined>;
  /** Removes the keys (and their fields). */
  delete(...keys: string[]): Promise<void>;
  /** The expiry of `key` moves to `ttlMs` from now; false when there is no such key. */
  touch(key: string, ttlMs: number): Promise<boolean>;
  /** Adds 1 to the counter at `key` (none: 0) and sets its expiry; the new value. */
  increment(key: string, ttlMs: number): Promise<number>;
  /** Puts `value` at one field of `key` (a map of fields), the whole key expiring `ttlMs` from now. */
  setField(key: string, field: string, value: string, ttlMs: number): Promise<void>;
  /** Every field of `key`; empty when there is none. */
  fields(key: string): Promise<Record<string, string>>;
  /** Removes one field of `key`. */
  deleteField(key: string, field: string): Promise<void>;
  /** Sends `message` to every subscriber of `channel` (on every replica, with a shared store). */
  publish(channel: string, message: string): Promise<void>;
  /** Calls `listener` with each message published on `channel` from now on, until the returned stop. */
  subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>>;
  /**
   * Calls `listener` each time a store that was unreachable is back (a shared one): what was
   * published meanwhile never arrived, so whoever follows the feed says again what may have changed.
   * Returns the stop. A store of one process's own is never away and has none.
   */
  onRestored?(listener: () => void): () => void;
  /** What it is, for messages: "memory", or the store's address without its password. */
  readonly name: string;
  /**
   * Other processes read it too (Redis): what a session keeps that is large and read often (its
   * cut results) goes in as data only then; a store of one process's own keeps it as it is.
   */
  readonly shared: boolean;
  /** Ends its connections; what is asked later fails. */
  close(): Promise<void>;
}

/**
 * A key of the store: under one prefix, the part that groups a session's keys in braces (a Redis
 * Cluster hash tag, so that one session's keys stay on one node), then the kind and the id.
 */
export function storeKey(group: string, kind: string, id = ""): string {
  return `wb:{${group}}:${kind}${id === "" ? "" : `:${id}`}`;
}

/** A new id, unique across processes and replicas (not a counter of one process). */
export function newId(): string {
  return crypto.randomUUID();
}
