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

/** The server's first error reply to the handshake, as a RedisReply error; else `fallback`, or why the socket failed. */
export async function whyNotConnected(address: RedisAddress, timeoutMs: number, fallback: Error): Promise<Error> {
  const commands = handshake(address);
  let text = "";
  let socket: Awaited<ReturnType<typeof Bun.connect>> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const answered = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      const lines = () => text.split("\r\n").slice(0, -1);
      Bun.connect({
        hostname: address.host,
        port: address.port,
        tls: address.tls,
        socket: {
          open: (opened) => void opened.write(commands.map(resp).join("")),
          data: (_, data) => {
            text += new TextDecoder().decode(data);
            if (lines().length >= commands.length || lines().some((line) => line.startsWith("-"))) resolve();
          },
          close: () => resolve(),
          error: () => resolve(),
        },
      }).then((opened) => (socket = opened), (error) => {
        // "Failed to connect" says little without its code (ECONNREFUSED, ETIMEDOUT).
        const code = (error as { code?: unknown }).code;
        text = `connect: ${(error as Error).message}${typeof code === "string" ? ` (${code})` : ""}`;
        resolve();
      });
    });
    await answered;
  } finally {
    clearTimeout(timer);
    socket?.end();
  }
  const refused = text.split("\r\n").find((line) => line.startsWith("-"));
  if (refused !== undefined) return redisError("RedisReply", refused.slice(1), fallback);
  if (text.startsWith("connect: ")) return new Error(text.slice("connect: ".length), { cause: fallback });
  return fallback;
}
