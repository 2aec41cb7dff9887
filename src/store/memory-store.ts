/**
 * The store in the workbench's own memory: the default, for one workbench. Expired keys are dropped as
 * they are read, and a few more at each write (a sweep that goes round all keys, a few at a time),
 * so that keys never read again do not pile up; no timer keeps the process alive.
 */
import type { Store } from "./store.ts";

interface Entry {
  value?: string;
  fields?: Map<string, string>;
  /** Date (ms) after which it is gone. */
  expires: number;
}

/** Keys looked at per write for expiry: enough to keep up with the writes, few enough to cost nothing. */
const SWEEP_PER_WRITE = 4;

export class MemoryStore implements Store {
  readonly name = "memory";
  readonly shared: boolean;
  readonly #entries = new Map<string, Entry>();
  readonly #channels = new Map<string, Set<(message: string) => void>>();
  readonly #now: () => number;
  #closed = false;

  /** `now`: the clock (tests move it on); `shared`: several replicas in one process use it (tests). */
  constructor(options: { now?: () => number; shared?: boolean } = {}) {
    this.#now = options.now ?? Date.now;
    this.shared = options.shared ?? false;
  }

  /** How many keys it holds now (expired ones not yet swept included). */
  get size(): number {
    return this.#entries.size;
  }

  get(key: string): Promise<string | undefined> {
    return this.#answer(() => this.#live(key)?.value);
  }

  set(key: string, value: string, ttlMs: number): Promise<void> {
    return this.#answer(() => this.#write(key, { value, expires: this.#now() + ttlMs }));
  }

  add(key: string, value: string, ttlMs: number): Promise<boolean> {
    return this.#answer(() => {
      if (this.#live(key)) return false;
      this.#write(key, { value, expires: this.#now() + ttlMs });
      return true;
    });
  }

  take(key: string): Promise<string | undefined> {
    return this.#answer(() => {
      const value = this.#live(key)?.value;
      this.#entries.delete(key);
      return value;
    });
  }

  delete(...keys: string[]): Promise<void> {
    return this.#answer(() => {
      for (const key of keys) this.#entries.delete(key);
    });
  }

  touch(key: string, ttlMs: number): Promise<boolean> {
    return this.#answer(() => {
      const entry = this.#live(key);
      if (entry) entry.expires = this.#now() + ttlMs;
      return entry !== undefined;
    });
  }

  increment(key: string, ttlMs: number): Promise<number> {
    return this.#answer(() => {
      const count = Number(this.#live(key)?.value ?? "0") + 1;
      this.#write(key, { value: String(count), expires: this.#now() + ttlMs });
      return count;
    });
  }

  setField(key: string, field: string, value: string, ttlMs: number): Promise<void> {
    return this.#answer(() => {
      const fields = this.#live(key)?.fields ?? new Map<string, string>();
      fields.set(field, value);
      this.#write(key, { fields, expires: this.#now() + ttlMs });
    });
  }

  fields(key: string): Promise<Record<string, string>> {
    return this.#answer(() => Object.fromEntries(this.#live(key)?.fields ?? []));
  }

  deleteField(key: string, field: string): Promise<void> {
    return this.#answer(() => {
      const entry = this.#live(key);
      entry?.fields?.delete(field);
      if (entry?.fields?.size === 0) this.#entries.delete(key);
    });
  }

  publish(channel: string, message: string): Promise<void> {
    return this.#answer(() => {
      // Each listener on a turn of its own, as a message from another replica would come.
      for (const listener of this.#channels.get(channel) ?? []) queueMicrotask(() => listener(message));
    });
  }

  subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>> {
    return this.#answer(() => {
      // One entry per subscription: the same function subscribed twice hears each message twice.
      const own = (message: string) => listener(message);
      const listeners = this.#channels.get(channel) ?? new Set();
      listeners.add(own);
      this.#channels.set(channel, listeners);
      return () => {
        listeners.delete(own);
        if (listeners.size === 0 && this.#channels.get(channel) === listeners) this.#channels.delete(channel);
        return Promise.resolve();
      };
    });
  }

  close(): Promise<void> {
    this.#closed = true;
    this.#entries.clear();
    this.#channels.clear();
    return Promise.resolve();
  }

  /** An answer as a store over the network gives it: later, and a failure as a rejection. */
  #answer<T>(work: () => T): Promise<T> {
    if (this.#closed) return Promise.reject(new Error("The memory store is closed"));
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #live(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry && entry.expires <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  #write(key: string, entry: Entry): void {
    this.#entries.set(key, entry);
    this.#sweep();
  }

  /** Where the sweep goes on from: a Map's iterator sees keys added and removed after it was made. */
  #cursor?: Iterator<[string, Entry]>;

  #sweep(): void {
    const now = this.#now();
    for (let looked = 0; looked < SWEEP_PER_WRITE; looked++) {
      this.#cursor ??= this.#entries.entries();
      const next = this.#cursor.next();
      if (next.done) {
        this.#cursor = undefined;
        return;
      }
      const [key, entry] = next.value;
      if (entry.expires <= now) this.#entries.delete(key);
    }
  }
}
