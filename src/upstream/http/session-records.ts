/**
 * What any replica needs to serve a 2025-11-25 session it never saw: the session's record in the
 * store, under its id. It holds whose the session is (the client's grant key, so that another
 * client's token presenting the id finds nothing) and the client's initialize as it came (replayed
 * on a replica that restores the session, it gives the session the same protocol version, client
 * info and capabilities). No secret is in it: a token is never kept, only the grant key. A record
 * read back is checked like any input: a store that holds something else restores nothing.
 */
import { type Store, storeKey } from "../../store/store.ts";
import { isObject } from "../../protocol/json-object.ts";

export interface SessionRecord {
  /** The client's grant key (see grantKey): its name and grants. */
  client: string;
  /** The client's `initialize` request as it came. */
  initialize: { jsonrpc: "2.0"; id: string | number; method: "initialize"; params: Record<string, unknown> };
}

/** A store could not be read: a 2025 request then gets 503, never 404 (its session may well live). */
export class StoreUnavailable extends Error {
  constructor(store: string, cause: unknown) {
    super(`The session store ${store} cannot be reached: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = "StoreUnavailable";
  }
}

export class SessionRecords {
  /** The store the records are in (the change feed goes through it too, relayed-notices.ts). */
  readonly store: Store;
  readonly #store: Store;
  readonly #ttlMs: number;
  /** When this process last moved each record's expiry on (at most once in a tenth of it). */
  readonly #touched = new Map<string, number>();

  /** `ttlMs`: a record outlives the session's last request by this (its idle time). */
  constructor(store: Store, ttlMs: number) {
    this.#store = this.store = store;
    this.#ttlMs = ttlMs;
  }

  async write(id: string, record: SessionRecord): Promise<void> {
    await this.#store.set(keyOf(id), JSON.stringify(record), this.#ttlMs);
    this.#touched.set(id, Date.now());
  }

  /** The record of session `id`; undefined when there is none (or it is not one); StoreUnavailable when the store fails. */
  async read(id: string): Promise<SessionRecord | undefined> {
    let text: string | undefined;
    try {
      text = await this.#store.get(keyOf(id));
    } catch (error) {
      throw new StoreUnavailable(this.#store.name, error);
    }
    return text === undefined ? undefined : parseRecord(text);
  }

  /** Session `id` was used: its record lives on. Not awaited: a store that fails is said elsewhere. */
  touch(id: string): void {
    const now = Date.now();
    if (now - (this.#touched.get(id) ?? 0) < this.#ttlMs / 10) return;
    this.#touched.set(id, now);
    void this.#store.touch(keyOf(id), this.#ttlMs).catch(() => {});
  }

  /** This process let go of session `id`: its record stays for the other replicas. */
  release(id: string): void {
    this.#touched.delete(id);
  }

  /** Session `id` ended for good (DELETE): its record goes, and every replica hears of it (see onEnded). */
  async remove(id: string): Promise<void> {
    this.#touched.delete(id);
    await this.#store.delete(keyOf(id)).catch(() => {});
    await this.#store.publish(ENDED_CHANNEL, id).catch(() => {});
  }

  /** Calls `ended` with each session id another replica (or this one) ended for good; subscribed once. */
  onEnded(ended: (id: string) => void): void {
    if (this.#watching) return;
    this.#watching = this.#store.subscribe(ENDED_CHANNEL, ended).catch(() => undefined);
  }
  #watching?: Promise<unknown>;

  /** Stops hearing of ended sessions. */
  async close(): Promise<void> {
    const stop = await this.#watching;
    if (typeof stop === "function") await stop();
  }
}

/** Where the ends of sessions are told, to every replica. */
const ENDED_CHANNEL = storeKey("sessions", "ended");

function keyOf(id: string): string {
  return storeKey(id, "session");
}

/** The record, checked field by field: anything else is no record. */
export function parseRecord(text: string): SessionRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(value) || typeof value.client !== "string" || !isObject(value.initialize)) return undefined;
  const { jsonrpc, id, method, params } = value.initialize;
  if (jsonrpc !== "2.0" || method !== "initialize" || !isObject(params)) return undefined;
  if (typeof id !== "string" && typeof id !== "number") return undefined;
  return { client: value.client, initialize: { jsonrpc, id, method, params } };
}
