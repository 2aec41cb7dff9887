/** The HTTP listener for serving MCP over HTTP, on Bun (Bun.serve). */
import type { HttpListener } from "./types.ts";

export function listen(handler: (request: Request) => Promise<Response>, hostname: string, port: number): Promise<HttpListener> {
  // idleTimeout 0: Bun closes a connection quiet for 10 s by default, and an event stream may be.
  const server = Bun.serve({ hostname, port, idleTimeout: 0, fetch: handler });
  return Promise.resolve({
    hostname,
    port: server.port!,
    close: async () => {
      await server.stop(true);
    },
  });
}
