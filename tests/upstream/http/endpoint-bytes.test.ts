/**
 * The endpoint's bound on one client's bytes of request bodies (issue 38, body-budget.ts), in
 * process: a large body past the bound waits, unread, and one past the line (a count of requests,
 * here 1) is refused at once (503, Retry-After); a small body never waits, so bodies that stall
 * cannot lock the client out.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { platform } from "#platform";
import { validateConfig } from "../../../src/config/index.ts";
import { ServerPool } from "../../../src/toolboxes/pool.ts";
import { openSession } from "../../../src/upstream/session.ts";
import { httpEndpoint } from "../../../src/upstream/http/endpoint.ts";
import { authenticatorFor } from "../../../src/upstream/access/index.ts";

const config = validateConfig({ toolboxes: { dev: { description: "Nothing behind it", mcpServers: {} } } });
const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28" };
const DISCOVER = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } } });

/** A request whose body declares `length` bytes and sends one, then stalls (until `stop`). */
function stalled(length: number, stop: AbortSignal): Request {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode("{"));
      stop.addEventListener("abort", () => controller.error(new Error("stopped")));
    },
  });
  return new Request("http://127.0.0.1:1/mcp", { method: "POST", headers: { ...HEADERS, "content-length": String(length) }, body, duplex: "half" } as RequestInit);
}

test("http endpoint bytes: stalled large bodies fill the client's bound and line (503 at once past it), yet a small request is answered", async () => {
  const pool = new ServerPool(config, { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {} });
  const endpoint = httpEndpoint({
    authenticate: authenticatorFor(undefined, { toolboxes: [] }),
    open: (transport, client, onClose) => openSession(transport, { config, configPath: "http.json", pool, client, stateless: true, onClose, onError: () => {} }),
    maxBodyBytesInFlight: 200_000,
    maxBodiesWaitingPerClient: 1,
    bodyTimeoutMs: 5_000,
  });
  const stop = new AbortController();
  try {
    // The first two are let in (the bound is reached with the second), the third waits in line,
    // and the fourth finds the line full.
    const sleep = () => new Promise((resolve) => setTimeout(resolve, 20));
    const first = endpoint.handle(stalled(150_000, stop.signal));
    await sleep();
    const second = endpoint.handle(stalled(150_000, stop.signal));
    await sleep();
    const third = endpoint.handle(stalled(150_000, stop.signal));
    await sleep();
    const fourth = await endpoint.handle(stalled(150_000, stop.signal));
    assert.equal(fourth.status, 503);
    assert.equal(fourth.headers.get("retry-after"), "5");
    assert.match((await fourth.json()).error.message, /^Service unavailable: client "local" has the most bytes of requests in flight and the line of requests waiting for them is full \(1 for one client/);
    // Its length declared, as a client over the network sends it; answered at once, not after the
    // stalled bodies' 5 s: judged by order (none of them has ended yet), not by a bound in seconds.
    let ended = 0;
    for (const stalledOne of [first, second, third]) void stalledOne.finally(() => ended++).catch(() => {});
    const small = await endpoint.handle(new Request("http://127.0.0.1:1/mcp", { method: "POST", headers: { ...HEADERS, "content-length": String(DISCOVER.length) }, body: DISCOVER }));
    assert.equal(small.status, 200);
    assert.equal((await small.json()).result.supportedVersions[0], "2026-07-28");
    assert.equal(ended, 0, "the small request was answered only once a stalled body gave up");
    stop.abort();
    await Promise.allSettled([first, second, third]);
  } finally {
    stop.abort();
    await endpoint.close();
    await pool.closeAll();
  }
});
