/** The HTTP listener for serving MCP over HTTP, on Deno (Deno.serve). */
import type { HttpListener } from "./types.ts";

/** How long a close waits for responses still streaming before it lets them go. */
const SHUTDOWN_MS = 1_000;

export function listen(handler: (request: Request) => Promise<Response>, hostname: string, port: number): Promise<HttpListener> {
  return new Promise((resolve, reject) => {
    try {
      const server = Deno.serve({
        hostname,
        port,
        onListen: ({ port }) =>
          resolve({
            hostname,
            port,
            close: async () => {
              // shutdown() waits for every response to end, and an event stream may not.
              let timer: ReturnType<typeof setTimeout> | undefined;
              const timeout = new Promise<void>((done) => (timer = setTimeout(done, SHUTDOWN_MS)));
              await Promise.race([server.shutdown(), timeout]);
              clearTimeout(timer);
            },
          }),
      }, handler);
    } catch (error) {
      reject(error);
    }
  });
}
