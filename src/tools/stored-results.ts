/**
 * A session's cut results in a store shared by replicas (issue 48 §2): kept on one replica, read on
 * with read_result on any. Each result is one key of JSON, expiring MAX_AGE_MS after it was kept or
 * last read, as this process's ResultStore does; the session's index (one field per result: its
 * bytes and when it was last read) bounds the session to MAX_BYTES in all, the least recently read
 * going first. Ids are the session's counter in the store, so two replicas never give one id twice;
 * the counter outlives the session's end (it expires 2 × MAX_AGE_MS after the last result kept), so
 * a session key used again (a 2026-07-28 client's) never gets an id a replica may still hold.
 */
import type { ContentBlock } from "../protocol/sdk.ts";
import { type Store, storeKey } from "../store/store.ts";
import { fitted, type KeptResult, type KeptResults, MAX_AGE_MS, MAX_BYTES } from "./result-store.ts";
import { isObject } from "../protocol/json-object.ts";

/** What an id of ours looks like: what a client passes as one is never made into a key otherwise. */
const ID = /^r[1-9][0-9]{0,15}$/;
/** Draws of an id whose key was taken (a counter that expired while one of its results was still read). */
const MAX_ID_DRAWS = 8;

export interface StoredLimits {
  maxBytes: number;
  maxAgeMs: number;
  now: () => number;
}

/** The keys of session `session`'s cut results (its index and each result it lists, not its counter), for an end. */
export async function storedResultKeys(store: Store, session: string): Promise<string[]> {
  const ids = Object.keys(await store.fields(storeKey(session, "results")));
  return [storeKey(session, "results"), ...ids.filter((id) => ID.test(id)).map((id) => storeKey(session, "result", id))];
}

export class StoredResults implements KeptResults {
  readonly #store: Store;
  readonly #session: string;
  readonly #index: string;
  readonly #limits: StoredLimits;
  /**
   * The last result kept or read here, as it was parsed: read on page after page, it is not fetched
   * and parsed again while the store still has it (its expiry moved on is the check). Trusted only
   * within MAX_AGE_MS of its last read here: till then its key cannot have expired, and its id
   * cannot have been given again (that takes the counter's expiry).
   */
  #last?: KeptResult;

  constructor(store: Store, session: string, limits: Partial<StoredLimits> = {}) {
    this.#store = store;
    this.#session = session;
    this.#index = storeKey(session, "results");
    this.#limits = { maxBytes: MAX_BYTES, maxAgeMs: MAX_AGE_MS, now: () => Date.now(), ...limits };
  }

  async keep(toolbox: string, limit: number, items: readonly ContentBlock[]): Promise<KeptResult> {
    const fit = fitted(items, this.#limits.maxBytes);
    await this.#makeRoom(fit.bytes);
    const touched = this.#limits.now();
    const entry: KeptResult = { id: "", toolbox, limit, ...fit, touched };
    const json = JSON.stringify({ toolbox, limit, items: fit.items, dropped: fit.dropped });
    for (let draw = 0; draw < MAX_ID_DRAWS && entry.id === ""; draw++) {
      const id = `r${await this.#store.increment(storeKey(this.#session, "result-ids"), 2 * this.#limits.maxAgeMs)}`;
      if (await this.#store.add(this.#key(id), json, this.#limits.maxAgeMs)) entry.id = id;
    }
    if (entry.id === "") throw new Error(`No free result id in the store '${this.#store.name}' after ${MAX_ID_DRAWS} draws`);
    await this.#listed(entry.id, fit.bytes, touched);
    // Keeps of one session at the same time (on one replica or several) each made room for itself
    // alone: counted again with this one listed, the least recently read of the others go.
    await this.#makeRoom(0, entry.id);
    this.#last = entry;
    return entry;
  }

  /** The kept result, its age restarted; undefined when unknown, expired or pushed out (on any replica). */
  async get(id: string): Promise<KeptResult | undefined> {
    if (!ID.test(id)) return undefined;
    const key = this.#key(id);
    const now = this.#limits.now();
    const last = this.#last;
    let entry: KeptResult | undefined;
    if (last?.id === id && now - last.touched < this.#limits.maxAgeMs) {
      // The expiry moved on and the index told, in one round trip: the next page of the same result.
      const [there] = await Promise.all([this.#store.touch(key, this.#limits.maxAgeMs), this.#listed(id, last.bytes, now)]);
      if (there) entry = last;
      else await this.#store.deleteField(this.#index, id);
    }
    if (entry === undefined) {
      const json = await this.#store.get(key);
      entry = json === undefined ? undefined : parseKept(id, json, this.#limits.maxBytes);
      if (entry === undefined) return undefined;
      // Gone between the read and now (pushed out on another replica): no index entry for it.
      if (!await this.#store.touch(key, this.#limits.maxAgeMs)) return undefined;
      await this.#listed(id, entry.bytes, now);
    }
    entry.touched = now;
    this.#last = entry;
    return entry;
  }

  /** The index says result `id` holds `bytes` and was read at `touched`. */
  #listed(id: string, bytes: number, touched: number): Promise<void> {
    return this.#store.setField(this.#index, id, `${bytes} ${touched}`, this.#limits.maxAgeMs);
  }

  /** Forgets the expired results, then the least recently read (never `keeping`), until `bytes` more fit the bound. */
  async #makeRoom(bytes: number, keeping?: string): Promise<void> {
    const listed = Object.entries(await this.#store.fields(this.#index)).map(([id, value]) => {
      const [size, touched] = value.split(" ").map(Number);
      return { id, bytes: size || 0, touched: touched || 0 };
    }).sort((a, b) => a.touched - b.touched);
    const oldest = this.#limits.now() - this.#limits.maxAgeMs;
    let held = listed.reduce((sum, one) => sum + one.bytes, 0);
    const gone: string[] = [];
    for (const one of listed) {
      if (one.touched >= oldest && held + bytes <= this.#limits.maxBytes) break;
      if (one.id === keeping) continue;
      gone.push(one.id);
      held -= one.bytes;
    }
    if (gone.length === 0) return;
    await this.#store.delete(...gone.filter((id) => ID.test(id)).map((id) => this.#key(id)));
    await Promise.all(gone.map((id) => this.#store.deleteField(this.#index, id)));
    if (this.#last && gone.includes(this.#last.id)) this.#last = undefined;
  }

  #key(id: string): string {
    return storeKey(this.#session, "result", id);
  }
}

/**
 * A result as the store gave it, checked like input (issue 48 §5: a poisoned store cannot crash a
 * replica): anything but a toolbox, a limit, content items and what was dropped is no result. Its
 * positions and bytes are counted again from its items, never taken from the store.
 */
export function parseKept(id: string, json: string, maxBytes: number): KeptResult | undefined {
  // No item is larger in JSON than 6 bytes a character (\uXXXX) and what is around it.
  if (json.length > 6 * maxBytes + 1_024) return undefined;
  try {
    const value: unknown = JSON.parse(json);
    if (!isObject(value) || typeof value.toolbox !== "string" || value.toolbox === "") return undefined;
    const { limit, dropped, items } = value;
    if (!isCount(limit) || limit === 0 || !isCount(dropped) || !Array.isArray(items) || !items.every(isItem)) return undefined;
    // Counted again (a nesting too deep to write back throws here, and is no result either).
    const { starts, bytes } = fitted(items, Infinity);
    return bytes > maxBytes ? undefined : { id, toolbox: value.toolbox, limit, items, dropped, starts, bytes, touched: 0 };
  } catch {
    return undefined;
  }
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** A content item as a page is made of it: an object with a type, and a text when it is text. */
function isItem(value: unknown): value is ContentBlock {
  return isObject(value) && typeof value.type === "string" && (value.type !== "text" || typeof value.text === "string");
}
