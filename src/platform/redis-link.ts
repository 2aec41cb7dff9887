/**
 * The Redis link of both adapters (types.ts, RedisLink), runtime-neutral: what each runtime's
 * client does alike once reduced to one connection that opens, sends, subscribes and closes
 * (bun-redis.ts, deno-redis.ts). The clients' own reconnection is off, as the two differ: Bun's
 * neither says a connection was lost nor subscribes again after it, and gives up after 20 tries.
 * Here, one outage is one `lost` and one `restored`, whichever of the two connections saw it.
 */
import type { RedisAddress, RedisLink, RedisLinkEvents, RedisReply, RedisTimings } from "./types.ts";

/** One connection of a runtime's client, its own reconnection off and no queue while disconnected. */
export interface RedisConnection {
  /** Rejects with an Error named "RedisReply" for an error reply; anything else is the connection's trouble. */
  send(command: string[]): Promise<RedisReply>;
  subscribe(channel: string): Promise<void>;
  unsubscribe(channel: string): Promise<void>;
  /** Ends it; `dropped` is not called for that. */
  close(): void;
}

export interface RedisConnectionEvents {
  /** The connection went without `close` (the server stopped, the network broke). */
  dropped(error: Error): void;
  message(channel: string, message: string): void;
}

export type OpenRedis = (address: RedisAddress, connectTimeoutMs: number, events: RedisConnectionEvents) => Promise<RedisConnection>;

/** The first wait before reconnecting; each failed attempt doubles it, up to the cap. */
const FIRST_WAIT_MS = 50;

/** An Error named for the link's contract (types.ts, RedisLink). */
export function redisError(name: "RedisReply" | "RedisUnreachable", message: string, cause?: unknown): Error {
  const error = new Error(message, cause === undefined ? undefined : { cause });
  error.name = name;
  return error;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** `promise`, or a rejection saying `what` once `ms` have passed. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} in ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A reply in the shape RESP2 gives: a map as a flat array, a boolean as 1 or 0, a big number or bytes as text. */
export function resp2(reply: unknown): RedisReply {
  if (reply === null || reply === undefined) return null;
  if (typeof reply === "string" || typeof reply === "number") return reply;
  if (typeof reply === "boolean") return reply ? 1 : 0;
  if (typeof reply === "bigint") return String(reply);
  if (Array.isArray(reply)) return reply.map(resp2);
  if (reply instanceof Uint8Array) return new TextDecoder().decode(reply);
  return Object.entries(reply as Record<string, unknown>).flatMap(([key, value]) => [key, resp2(value)]);
}

/** Opens the command connection (rejecting as `send` does when it cannot), then keeps the link up. */
export async function redisLink(
  address: RedisAddress,
  timings: RedisTimings,
  events: RedisLinkEvents,
  open: OpenRedis,
): Promise<RedisLink> {
  const link = new Link(address, timings, events, open);
  await link.start();
  return link;
}

class Link implements RedisLink {
  #state: "up" | "down" | "closed" = "down";
  /** Why the link is down, for the calls refused meanwhile. */
  #lostBecause = "Not connected yet";
  /** Counts connections made: a drop reported by one of an earlier round is old news. */
  #round = 0;
  #commands?: RedisConnection;
  #subscriber?: Promise<RedisConnection>;
  readonly #channels = new Set<string>();
  /** Failed attempts since the link was last up for a while: a link that is up only a moment does not start again at 50 ms. */
  #attempts = 0;
  #upSince = 0;
  #timer?: ReturnType<typeof setTimeout>;

  constructor(
    readonly address: RedisAddress,
    readonly timings: RedisTimings,
    readonly events: RedisLinkEvents,
    readonly open: OpenRedis,
  ) {}

  async start(): Promise<void> {
    try {
      this.#commands = await this.#connect(++this.#round);
      this.#upSince = Date.now();
    } catch (error) {
      throw error instanceof Error && error.name === "RedisReply" ? error : redisError("RedisUnreachable", messageOf(error), error);
    }
    this.#state = "up";
  }

  send(command: string[]): Promise<RedisReply> {
    const commands = this.#commands;
    if (this.#state !== "up" || commands === undefined) return Promise.reject(this.#refusal());
    return this.#bounded(commands.send(command), command[0]);
  }

  async subscribe(channel: string): Promise<void> {
    if (this.#state !== "up") throw this.#refusal();
    const subscriber = await this.#subscriberConnection();
    // In the set before the server has it: a reconnection meanwhile subscribes it too.
    this.#channels.add(channel);
    try {
      await this.#bounded(subscriber.subscribe(channel), "SUBSCRIBE");
    } catch (error) {
      this.#channels.delete(channel);
      throw error;
    }
  }

  /** The subscriber connection, opened by the first subscribe of a round. */
  async #subscriberConnection(): Promise<RedisConnection> {
    const round = this.#round;
    const opening = (this.#subscriber ??= this.#connect(round));
    try {
      return await opening;
    } catch (error) {
      if (this.#subscriber === opening) this.#subscriber = undefined;
      throw this.#troubled(error, round);
    }
  }

  async unsubscribe(channel: string): Promise<void> {
    // Not subscribed again after an outage: nothing to tell a server that is down.
    if (!this.#channels.delete(channel) || this.#state !== "up" || this.#subscriber === undefined) return;
    await this.#bounded((await this.#subscriberConnection()).unsubscribe(channel), "UNSUBSCRIBE");
  }

  close(): Promise<void> {
    this.#state = "closed";
    this.#lostBecause = "The link is closed";
    clearTimeout(this.#timer);
    this.#closeConnections();
    this.#channels.clear();
    return Promise.resolve();
  }

  #refusal(): Error {
    return redisError("RedisUnreachable", this.#lostBecause);
  }

  /** A reply within the command timeout; a failure that is not an error reply takes the link down. */
  async #bounded<T>(reply: Promise<T>, what = "a command"): Promise<T> {
    const round = this.#round;
    try {
      return await within(reply, this.timings.commandTimeoutMs, `No answer to ${what}`);
    } catch (error) {
      if (error instanceof Error && error.name === "RedisReply") throw error;
      throw this.#troubled(error, round);
    }
  }

  /** The connection's trouble as the link's error; the link goes down if it was up in that round. */
  #troubled(error: unknown, round = this.#round): Error {
    this.#drop(error, round);
    return redisError("RedisUnreachable", this.#state === "closed" ? "The link is closed" : messageOf(error), error);
  }

  /**
   * Opens one connection of round `round` (its drop, reported later, takes the link down) within the
   * connect timeout, whether or not the client bounds its handshake; one that opens too late is closed.
   */
  async #connect(round: number): Promise<RedisConnection> {
    const opening = this.open(this.address, this.timings.connectTimeoutMs, {
      dropped: (error) => this.#drop(error, round),
      message: (channel, message) => {
        if (round === this.#round && this.#channels.has(channel)) this.events.message(channel, message);
      },
    });
    try {
      return await within(opening, this.timings.connectTimeoutMs, "No connection");
    } catch (error) {
      opening.then((connection) => connection.close(), () => {});
      throw error;
    }
  }

  #drop(error: unknown, round: number): void {
    if (this.#state !== "up" || round !== this.#round) return;
    this.#state = "down";
    if (Date.now() - this.#upSince >= this.timings.reconnectCapMs) this.#attempts = 0;
    this.#lostBecause = `Connection lost: ${messageOf(error)}`;
    this.#closeConnections();
    this.events.lost(error instanceof Error ? error : new Error(String(error)));
    this.#retry();
  }

  #closeConnections(): void {
    this.#commands?.close();
    this.#commands = undefined;
    const subscriber = this.#subscriber;
    this.#subscriber = undefined;
    subscriber?.then((connection) => connection.close(), () => {});
  }

  #retry(): void {
    const wait = Math.min(this.timings.reconnectCapMs, FIRST_WAIT_MS * 2 ** Math.min(this.#attempts, 20));
    this.#attempts++;
    this.#timer = setTimeout(() => void this.#reconnect(), wait);
  }

  /** A new round: both connections again (the subscriber only when there are channels), then up. */
  async #reconnect(): Promise<void> {
    const round = ++this.#round;
    let commands: RedisConnection | undefined;
    let subscriber: RedisConnection | undefined;
    try {
      commands = await this.#connect(round);
      if (this.#channels.size > 0) {
        subscriber = await this.#connect(round);
        for (const channel of this.#channels) {
          await within(subscriber.subscribe(channel), this.timings.commandTimeoutMs, "No answer to SUBSCRIBE");
        }
      }
    } catch (error) {
      commands?.close();
      subscriber?.close();
      this.#lostBecause = `Connection lost: ${messageOf(error)}`;
      if (this.#state === "down") this.#retry();
      return;
    }
    if (this.#state !== "down" || round !== this.#round) {
      commands.close();
      subscriber?.close();
      return;
    }
    this.#commands = commands;
    this.#subscriber = subscriber && Promise.resolve(subscriber);
    this.#state = "up";
    this.#upSince = Date.now();
    this.events.restored();
  }
}
