/**
 * Why Bun's Redis client could not connect. Bun 1.4.5 says "Connection closed" for everything (no
 * server, a wrong password, a database out of range), so after a failed connect this asks the
 * server itself on a plain socket: AUTH and SELECT as the client sends them, then PING, in RESP2.
 * Only on that failure path: a connection that works never pays for it.
 */
import type { RedisAddress } from "./types.ts";
import { redisError } from "./redis-link.ts";

/** A command in RESP: its arguments as bulk strings, their lengths in bytes. */
function resp(args: string[]): string {
  return `*${args.length}\r\n${args.map((arg) => `$${new TextEncoder().encode(arg).length}\r\n${arg}\r\n`).join("")}`;
}

/** The handshake's commands, each answered by one line in RESP2: +OK, +PONG or -ERROR. */
function handshake(address: RedisAddress): string[][] {
  const commands: string[][] = [];
  if (address.password !== undefined) commands.push(["AUTH", address.username ?? "default", address.password]);
  if (address.database !== 0) commands.push(["SELECT", String(address.database)]);
  commands.push(["PING"]);
  return commands;
}

/** What the plain socket saw: the server's replies, or why it could not talk to it. */
interface Seen {
  replies: string;
  failure?: string;
}

/** The server's first error reply to the handshake, as a RedisReply error; else why the socket failed; else `fallback`. */
export async function whyNotConnected(address: RedisAddress, timeoutMs: number, fallback: Error): Promise<Error> {
  const seen = await ask(address, handshake(address), timeoutMs);
  const refused = seen.replies.split("\r\n").find((line) => line.startsWith("-"));
  if (seen.failure !== undefined) return new Error(seen.failure, { cause: fallback });
  if (refused !== undefined) return redisError("RedisReply", refused.slice(1), fallback);
  return fallback;
}

/** Sends the commands on a socket of its own, and waits (at most `timeoutMs`) for their replies, the first error, or the end. */
async function ask(address: RedisAddress, commands: string[][], timeoutMs: number): Promise<Seen> {
  const seen: Seen = { replies: "" };
  let socket: Awaited<ReturnType<typeof Bun.connect>> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const lines = () => seen.replies.split("\r\n").slice(0, -1);
  try {
    await new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      Bun.connect({
        hostname: address.host,
        port: address.port,
        tls: address.tls,
        socket: {
          open: (opened) => void opened.write(commands.map(resp).join("")),
          data: (_, data) => {
            seen.replies += new TextDecoder().decode(data);
            if (lines().length >= commands.length || lines().some((line) => line.startsWith("-"))) resolve();
          },
          // Bun.connect goes on with a certificate it cannot verify, where the client gives up: said here.
          handshake: (_, _success, authorizationError) => {
            if (authorizationError !== null) seen.failure ??= `TLS: ${authorizationError.message}`;
          },
          close: () => resolve(),
          error: (_, error) => {
            seen.failure ??= error.message;
            resolve();
          },
        },
      }).then((opened) => (socket = opened), (error) => {
        // "Failed to connect" says little without its code (ECONNREFUSED, ETIMEDOUT).
        const code = (error as { code?: unknown }).code;
        seen.failure ??= `${(error as Error).message}${typeof code === "string" ? ` (${code})` : ""}`;
        resolve();
      });
    });
  } finally {
    clearTimeout(timer);
    socket?.end();
  }
  return seen;
}
