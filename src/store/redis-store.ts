/**
 * The store on a Redis or Valkey server shared by replicas (issue 48): each operation of Store is
 * one command, atomic on the server (a take is GETDEL, so of two replicas taking one approval one
 * gets it; a counter's or a field's expiry is set in the same script as its write, so no key is
 * left without one). While the server cannot be reached every call fails at once, or within the
 * command timeout, with StoreUnavailableError naming the store; the link reconnects meanwhile, and
 * the outage is logged once when it starts and once when it ends. A reply is checked for its shape
 * before it is used: a poisoned or foreign server gets an error, not a crash.
 */
import type { RedisAddress, RedisLink, RedisLinkEvents, RedisReply, RedisTimings } from "../platform/types.ts";
import type { Store } from "./store.ts";
import { parseStoreUrl } from "./store-url.ts";

/** The store cannot be reached now: what needs it fails closed (a 2025 session read gets 503 with Retry-After). */
export class StoreUnavailableError extends Error {
  override name = "StoreUnavailableError";
}

/** The store answered in a way the workbench does not accept (an error reply, or a reply of the wrong shape). */
export class StoreReplyError extends Error {
  override name = "StoreReplyError";
}

/** How Platform.connectRedis is called: given to openRedisStore by the composition root. */
export type ConnectRedis = (address: RedisAddress, timings: RedisTimings, events: RedisLinkEvents) => Promise<RedisLink>;

export interface RedisStoreOptions {
  /** One line each when the store is lost and when it is back (never one per call). */
  log(message: string): void;
  /**
   * Called each time the store is back after an outage. What was published meanwhile never
   * arrives: whoever follows the change feed reads again what it follows.
   */
  restored?(): void;
  /** Bounds on connecting and on each command, and the cap of the wait between reconnections. */
  timings?: Partial<RedisTimings>;
}

/** Short: a call that needs the store must not hang a request while it is away. */
export const DEFAULT_TIMINGS: RedisTimings = { connectTimeoutMs: 2_000, commandTimeoutMs: 2_000, reconnectCapMs: 2_000 };

/** INCR and PEXPIRE as one step: a counter never lives without its expiry. */
const INCREMENT = "local n = redis.call('INCR', KEYS[1]) redis.call('PEXPIRE', KEYS[1], ARGV[1]) return n";
/** HSET and PEXPIRE as one step, for the same reason. */
const SET_FIELD = "redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) redis.call('PEXPIRE', KEYS[1], ARGV[3]) return 1";

/** Parses `url`, connects through `connect` and resolves once the store answers; rejects saying why when it cannot. */
export async function openRedisStore(url: string, connect: ConnectRedis, options: RedisStoreOptions): Promise<RedisStore> {
  const { address, name } = parseStoreUrl(url);
  const timings = { ...DEFAULT_TIMINGS, ...options.timings };
  const listeners = new Map<string, Set<(message: string) => void>>();
  const back = new Set<() => void>();
  let link: RedisLink;
  try {
    link = await connect(address, timings, {
      lost: (error) => options.log(`The store '${name}' is unreachable (${error.message}): what needs it fails until it is back`),
      restored: () => {
        options.log(`The store '${name}' is back`);
        options.restored?.();
        for (const listener of back) listener();
      },
      message: (channel, message) => {
        for (const listener of listeners.get(channel) ?? []) listener(message);
      },
    });
  } catch (error) {
    throw failure(name, "the connection", error);
  }
  return new RedisStore(link, name, listeners, back);
}

/** The link's rejection as the store's error, naming the store (never its password) and the command. */
function failure(name: string, command: string, error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof Error && error.name === "RedisReply") {
    return new StoreReplyError(`The store '${name}' refused ${command}: ${message}`, { cause: error });
  }
  return new StoreUnavailableError(`The store '${name}' is unreachable: ${message}`, { cause: error });
}

/** A TTL Redis takes: a whole number of milliseconds, at least 1 (PX 0 is an error). */
const ttl = (ms: number) => String(Math.max(1, Math.ceil(Number.isFinite(ms) ? ms : 1)));

export class RedisStore implements Store {
  readonly shared = true;
  #closed = false;
  /** The SUBSCRIBE of a channel's first subscriber, while the server has not confirmed it. */
  readonly #subscribing = new Map<string, Promise<void>>();

  constructor(
    readonly link: RedisLink,
    readonly name: string,
    readonly listeners: Map<string, Set<(message: string) => void>>,
    readonly back: Set<() => void> = new Set(),
  ) {}

  onRestored(listener: () => void): () => void {
    this.back.add(listener);
    return () => void this.back.delete(listener);
  }

  async get(key: string): Promise<string | undefined> {
    return text(await this.#send("GET", key), this.name, "GET");
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await this.#send("SET", key, value, "PX", ttl(ttlMs));
  }

  async add(key: string, value: string, ttlMs: number): Promise<boolean> {
    return (await this.#send("SET", key, value, "NX", "PX", ttl(ttlMs))) !== null;
  }

  async take(key: string): Promise<string | undefined> {
    return text(await this.#send("GETDEL", key), this.name, "GETDEL");
  }

  async delete(...keys: string[]): Promise<void> {
    if (keys.length > 0) await this.#send("DEL", ...keys);
  }

  async touch(key: string, ttlMs: number): Promise<boolean> {
    return count(await this.#send("PEXPIRE", key, ttl(ttlMs)), this.name, "PEXPIRE") === 1;
  }

  async increment(key: string, ttlMs: number): Promise<number> {
    return count(await this.#send("EVAL", INCREMENT, "1", key, ttl(ttlMs)), this.name, "INCR");
  }

  async setField(key: string, field: string, value: string, ttlMs: number): Promise<void> {
    await this.#send("EVAL", SET_FIELD, "1", key, field, value, ttl(ttlMs));
  }

  async fields(key: string): Promise<Record<string, string>> {
    const reply = await this.#send("HGETALL", key);
    if (!Array.isArray(reply) || reply.length % 2 !== 0 || !reply.every((item) => typeof item === "string")) {
      throw unexpected(this.name, "HGETALL");
    }
    const fields: Record<string, string> = {};
    // Defined, not assigned: a field named __proto__ is a field like any other.
    for (let i = 0; i < reply.length; i += 2) {
      Object.defineProperty(fields, reply[i] as string, { value: reply[i + 1], enumerable: true, writable: true, configurable: true });
    }
    return fields;
  }

  async deleteField(key: string, field: string): Promise<void> {
    await this.#send("HDEL", key, field);
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.#send("PUBLISH", channel, message);
  }

  async subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>> {
    if (this.#closed) throw this.#closedError();
    // One entry per subscription (the same function twice hears each message twice), as in memory.
    const own = (message: string) => listener(message);
    if (!this.listeners.has(channel)) {
      this.listeners.set(channel, new Set());
      this.#subscribing.set(channel, this.link.subscribe(channel));
    }
    try {
      // A second subscriber of the channel waits for the first's, so it too hears what comes after its own.
      await this.#subscribing.get(channel);
    } catch (error) {
      this.listeners.delete(channel);
      throw failure(this.name, "SUBSCRIBE", error);
    } finally {
      this.#subscribing.delete(channel);
    }
    const listeners = this.listeners.get(channel) ?? new Set();
    listeners.add(own);
    this.listeners.set(channel, listeners);
    return () => this.#unsubscribe(channel, own);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.listeners.clear();
    await this.link.close();
  }

  async #unsubscribe(channel: string, own: (message: string) => void): Promise<void> {
    const listeners = this.listeners.get(channel);
    if (!listeners?.delete(own) || listeners.size > 0) return;
    this.listeners.delete(channel);
    if (this.#closed) return;
    await this.link.unsubscribe(channel).catch((error) => {
      throw failure(this.name, "UNSUBSCRIBE", error);
    });
  }

  async #send(...command: string[]): Promise<RedisReply> {
    if (this.#closed) throw this.#closedError();
    try {
      return await this.link.send(command);
    } catch (error) {
      throw failure(this.name, command[0], error);
    }
  }

  #closedError(): Error {
    return new StoreUnavailableError(`The store '${this.name}' is closed`);
  }
}

function unexpected(name: string, command: string): Error {
  return new StoreReplyError(`The store '${name}' answered ${command} with a reply of the wrong shape`);
}

function text(reply: RedisReply, name: string, command: string): string | undefined {
  if (reply === null) return undefined;
  if (typeof reply !== "string") throw unexpected(name, command);
  return reply;
}

function count(reply: RedisReply, name: string, command: string): number {
  if (typeof reply !== "number" || !Number.isSafeInteger(reply)) throw unexpected(name, command);
  return reply;
}
