/**
 * The state seam (issue 47 §3): what a session keeps between its requests, as plain data in the
 * store (src/store/), under the session's key: a 2026-07-28 hub's key (client identity and declared
 * capabilities, the same on every replica), or a 2025-11-25 session's id, or a key of the session's
 * own (stdio). What it keeps: its approvals and retry state, the names of its open toolboxes, and
 * its cut results (as data in a store shared by replicas, stored-results.ts; in a store of this
 * process's own, kept as they are, result-store.ts). Nothing live: each replica opens its own
 * toolboxes from the names (see ToolboxRegistry.wasOpened). The keys expire `ttlMs` after the session's last use, and go at once
 * when the session ends for good (a DELETE, the end of a stdio session); a replica that only lets
 * go of its own copy of a session (idle here) leaves them to other replicas.
 */
import type { Store } from "../store/store.ts";
import { storeKey } from "../store/store.ts";
import { type KeptResults, ResultStore } from "../tools/result-store.ts";
import { storedResultKeys, StoredResults } from "../tools/stored-results.ts";
import { approvalKeys, type KeptApprovals, StoredApprovals } from "../trust/approvals.ts";
import type { KeptToolboxes } from "../toolboxes/registry.ts";
import type { WorkbenchConfig } from "../config/index.ts";

/** A session that is not served over HTTP (stdio) has no idle end: its state outlives a day of quiet. */
const UNSERVED_TTL_MS = 24 * 60 * 60_000;

/** The states of a process's sessions in `store`, each living as long as an idle session does (`serve.sessionIdleMinutes`). */
export function sessionStates(store: Store, live: { readonly current: WorkbenchConfig }, collect?: () => void): SessionStates {
  return new SessionStates(store, () => {
    const minutes = live.current.serve?.sessionIdleMinutes;
    return minutes === undefined ? UNSERVED_TTL_MS : minutes * 60_000;
  }, collect);
}

/** What one session keeps. */
export interface SessionState {
  readonly results: KeptResults;
  readonly approvals: KeptApprovals;
  /** The names of the toolboxes the session opened. */
  readonly toolboxes: KeptToolboxes;
  /** The session was used: what it keeps lives on (see SessionStates.touch). */
  touch(): void;
}

/** Every session's state, in one store. */
export class SessionStates {
  readonly store: Store;
  readonly #ttlMs: () => number;
  /**
   * Each session's cut results as this process reaches them: in the store when it is shared (the
   * last result read is kept parsed here, for its next page), else in this process as they are
   * (no copy into JSON of a result the same process reads back).
   */
  readonly #results = new Map<string, KeptResults>();
  /** When this process last moved each session's expiry on: at most once in a tenth of the expiry. */
  readonly #touched = new Map<string, number>();

  /** Gives back forgotten results' memory (the platform's collectGarbage; see StoreLimits.collect). */
  readonly #collect?: () => void;

  /** `ttlMs`: how long a session's state outlives its last use (read at each use: the configuration may change). */
  constructor(store: Store, ttlMs: () => number, collect?: () => void) {
    this.store = store;
    this.#ttlMs = ttlMs;
    this.#collect = collect;
  }

  /** The state of session `key`: what it kept, in the store; empty for a key never seen. */
  of(key: string): SessionState {
    let results = this.#results.get(key);
    if (!results) {
      results = this.store.shared ? new StoredResults(this.store, key) : new ResultStore({ collect: this.#collect });
      this.#results.set(key, results);
    }
    return {
      results,
      approvals: new StoredApprovals(this.store, key, this.#ttlMs),
      toolboxes: new StoredToolboxes(this.store, key, this.#ttlMs),
      // Bound, not wrapped: it is on every request's way.
      touch: this.touch.bind(this, key),
    };
  }

  /**
   * The session was used: its keys live on for the expiry from now. Cheap to call on every
   * request: the store is asked at most once in a tenth of the expiry.
   */
  touch(key: string): void {
    const ttl = this.#ttlMs();
    const now = Date.now();
    if (now - (this.#touched.get(key) ?? 0) < ttl / 10) return;
    this.#touched.set(key, now);
    for (const one of keysOf(key)) void this.store.touch(one, ttl).catch(() => {});
  }

  /** This process lets go of session `key` (idle here, or stopping); what it kept stays for other replicas. */
  release(key: string): void {
    this.#results.delete(key);
    this.#touched.delete(key);
  }

  /** Session `key` ended for good: what it kept goes. */
  async end(key: string): Promise<void> {
    this.release(key);
    const results = this.store.shared ? await storedResultKeys(this.store, key).catch(() => []) : [];
    await this.store.delete(...keysOf(key), ...results).catch(() => {});
  }

  /** How many sessions this process holds state for now. */
  get size(): number {
    return this.#results.size;
  }
}

/** A session's open toolboxes by name, as fields of one key. */
class StoredToolboxes implements KeptToolboxes {
  readonly #store: Store;
  readonly #key: string;
  readonly #ttlMs: () => number;

  constructor(store: Store, session: string, ttlMs: () => number) {
    this.#store = store;
    this.#key = storeKey(session, "toolboxes");
    this.#ttlMs = ttlMs;
  }

  add(name: string): Promise<void> {
    return this.#store.setField(this.#key, name, "1", this.#ttlMs());
  }

  async has(name: string): Promise<boolean> {
    return Object.hasOwn(await this.#store.fields(this.#key), name);
  }
}

/** Every key a session's state has in the store. */
function keysOf(session: string): string[] {
  return [...approvalKeys(session), storeKey(session, "toolboxes")];
}
