/** The HTTP listener for serving MCP over HTTP, on Bun (Bun.serve). */
import type { HttpListener } from "./types.ts";

export function listen(handler: (request: Request) => Promise<Response>, hostname: string, port: number): Promise<HttpListener> {
  const server = Bun.serve({
    hostname,
    port,
    // A failure is a plain 500, never Bun's page that shows the error and the source.
    development: false,
    error: () => new Response("Internal error", { status: 500 }),
    fetch(request, served) {
      // Bun cuts a connection quiet for 10 s (idleTimeout), a response being streamed included,
      // and an event stream or a long call may be quiet longer. Only while a request is answered:
      // a connection idle between requests is still closed.
      served.timeout(request, 0);
      return handler(request);
    },
  });
  return Promise.resolve({
    hostname,
    port: server.port!,
    close: async () => {
      await server.stop(true);
    },
  });
}
