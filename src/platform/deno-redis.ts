/**
 * One Redis connection on node-redis (`@redis/client`, RESP2), for redis-link.ts: its reconnection
 * and offline queue off (the link reconnects, and a call while disconnected fails at once). deno.ts
 * imports this file when a store is connected, so a workbench without a Redis store never loads it.
 */
import { createClient, ErrorReply } from "@redis/client";
import { type OpenRedis, type RedisConnectionEvents, redisError, resp2 } from "./redis-link.ts";

export const openRedis: OpenRedis = async (address, connectTimeoutMs, events: RedisConnectionEvents) => {
  /** An error reply keeps its text; anything else is the connection's. */
  const named = (error: unknown) => {
    if (error instanceof ErrorReply) return redisError("RedisReply", error.message, error);
    return error instanceof Error ? error : new Error(String(error));
  };
  const client = createClient({
    socket: {
      host: address.host,
      port: address.port,
      // Node's TLS checks the certificate against the host (and sends it as SNI unless it is an IP address).
      ...(address.tls ? { tls: true as const } : {}),
      connectTimeout: connectTimeoutMs,
      reconnectStrategy: false,
    },
    username: address.username,
    password: address.password,
    database: address.database,
    disableOfflineQueue: true,
  });
  let closed = false;
  // Without reconnection, a lost socket is told twice, the second time once the client is no longer open.
  client.on("error", (error: Error) => {
    if (!closed && !client.isOpen) events.dropped(error);
  });
  try {
    await client.connect();
  } catch (error) {
    closed = true;
    throw named(error);
  }
  return {
    send: (command) => client.sendCommand(command).then(resp2, (error) => Promise.reject(named(error))),
    subscribe: (channel) =>
      client.subscribe(channel, (message, from) => events.message(from, message)).catch((error) => Promise.reject(named(error))),
    unsubscribe: (channel) => client.unsubscribe(channel).catch((error) => Promise.reject(named(error))),
    close() {
      if (closed) return;
      closed = true;
      // A client whose socket was lost is closed already, and destroy() throws for that.
      if (client.isOpen) client.destroy();
    },
  };
};
