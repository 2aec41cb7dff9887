/**
 * One Redis connection on Bun's own client (Bun.RedisClient, RESP3), for redis-link.ts: its
 * reconnection and offline queue off (the link reconnects, and a call while disconnected fails at
 * once), replies brought to the RESP2 shapes the link promises (a map as [field, value, ...]).
 */
import type { RedisAddress } from "./types.ts";
import { whyNotConnected } from "./bun-redis-why.ts";
import { type OpenRedis, type RedisConnection, type RedisConnectionEvents, redisError, resp2 } from "./redis-link.ts";

/** The URL Bun's client takes, its user and password percent-encoded, an IPv6 host in brackets. */
function clientUrl(address: RedisAddress): string {
  const user = address.username === undefined ? "" : encodeURIComponent(address.username);
  const secret = address.password === undefined ? "" : `:${encodeURIComponent(address.password)}`;
  const credentials = user || secret ? `${user}${secret}@` : "";
  const host = address.host.includes(":") ? `[${address.host}]` : address.host;
  // No database: Bun may resolve connect() before its SELECT is refused, and say so to the next command.
  return `${address.tls ? "rediss" : "redis"}://${credentials}${host}:${address.port}`;
}

/** The codes Bun gives an error reply; the others (closed, timed out, a reply it cannot read) are the connection's. */
const REPLY_CODES = new Set([
  "ERR_REDIS_SERVER_ERROR",
  "ERR_REDIS_AUTHENTICATION_FAILED",
  "ERR_REDIS_INVALID_COMMAND",
  "ERR_REDIS_INVALID_PASSWORD",
  "ERR_REDIS_INVALID_USERNAME",
  "ERR_REDIS_INVALID_DATABASE",
]);

/** An error reply keeps its text, named RedisReply; anything else is left to the link as the connection's. */
function named(error: unknown): Error {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && REPLY_CODES.has(code)) {
    return redisError("RedisReply", (error as Error).message, error);
  }
  return error instanceof Error ? error : new Error(String(error));
}

export const openRedis: OpenRedis = async (address, connectTimeoutMs, events: RedisConnectionEvents) => {
  const client = new Bun.RedisClient(clientUrl(address), {
    connectionTimeout: connectTimeoutMs,
    autoReconnect: false,
    enableOfflineQueue: false,
    tls: address.tls,
  });
  let closed = false;
  client.onclose = (error) => {
    if (!closed) events.dropped(error ?? new Error("Connection closed"));
  };
  try {
    await client.connect();
    if (address.database !== 0) await client.send("SELECT", [String(address.database)]);
  } catch (error) {
    closed = true;
    client.close();
    const reason = named(error);
    throw reason.name === "RedisReply" ? reason : await whyNotConnected(address, connectTimeoutMs, reason);
  }
  // One listener for every channel: Bun keeps each one given, and calls each.
  const deliver = (message: string, channel: string) => events.message(channel, message);
  const connection: RedisConnection = {
    send: (command) => client.send(command[0], command.slice(1)).then(resp2, (error) => Promise.reject(named(error))),
    subscribe: (channel) => client.subscribe(channel, deliver).then(() => {}, (error) => Promise.reject(named(error))),
    unsubscribe: (channel) => client.unsubscribe(channel, deliver).catch((error) => Promise.reject(named(error))),
    close() {
      closed = true;
      client.close();
    },
  };
  return connection;
};
