/**
 * The HTTP endpoint in process, through its web handler (no listener), for the tests of
 * tests/upstream/http: a configuration's sessions on a pool of their own, every request the local
 * user's unless `authenticate` says otherwise.
 */
import { platform } from "#platform";
import { validateConfig, type WorkbenchConfig } from "../../src/config/index.ts";
import { ServerPool } from "../../src/toolboxes/pool.ts";
import { openSession } from "../../src/upstream/session.ts";
import { type HttpEndpointOptions, httpEndpoint } from "../../src/upstream/http/endpoint.ts";
import { authenticatorFor } from "../../src/upstream/access/index.ts";

/** One toolbox with no server: enough for sessions, their limits and their refusals. */
export const EMPTY_CONFIG = validateConfig({ toolboxes: { dev: { description: "Nothing behind it", mcpServers: {} } } });
export const ENDPOINT_URL = "http://127.0.0.1:1/mcp";
export const JSON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
export const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

export function endpointWith(options: Partial<HttpEndpointOptions>, config: WorkbenchConfig = EMPTY_CONFIG) {
  const pool = new ServerPool(config, { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {} });
  return httpEndpoint({
    // No tokens configured: every request is the local user's, as served on loopback.
    authenticate: authenticatorFor(undefined, { toolboxes: [] }),
    open: (transport, client, onClose) => openSession(transport, { config, configPath: "http.json", pool, client, stateless: true, onClose, onError: () => {} }),
    ...options,
  });
}

export const post = (body: unknown, headers: Record<string, string> = {}) =>
  new Request(ENDPOINT_URL, { method: "POST", headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) });

/**
 * A response's JSON-RPC answer, whether plain JSON or the answer on an event stream: an answer
 * later than UPGRADE_MS (pending-reply.ts), such as one that waits for a server's start on a loaded
 * machine, comes on a stream, and either is right.
 */
// deno-lint-ignore no-explicit-any
export async function answerOf(response: Response): Promise<any> {
  const text = await response.text();
  if (!response.headers.get("content-type")?.includes("text/event-stream")) return JSON.parse(text);
  const messages = text.split("\n").filter((line) => line.startsWith("data: ")).map((line) => JSON.parse(line.slice(6)));
  return messages.find((message) => "result" in message || "error" in message);
}
