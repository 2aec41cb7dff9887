/**
 * The HTTP endpoint in process, through its web handler (no listener): idle sessions and hubs end
 * after the idle time (then 404), the cap on live sessions (503 beyond it), the bound on one
 * client's requests in flight (429 beyond it, an open GET stream counting), and 415 for what a web
 * page can send without a preflight.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { platform } from "#platform";
import { validateConfig } from "../../../src/config/index.ts";
import { ServerPool } from "../../../src/toolboxes/pool.ts";
import { openSession } from "../../../src/upstream/session.ts";
import { httpEndpoint } from "../../../src/upstream/http/endpoint.ts";
import { answerOf, EMPTY_CONFIG, ENDPOINT_URL, endpointWith, INITIALIZE, post } from "../../helpers/http-endpoint.ts";
import { eventually, fx, requestLog } from "../../helpers/toolbox.ts";
import { removeTempDirs } from "../../helpers/workbench.ts";

after(removeTempDirs);

const config = EMPTY_CONFIG;
const URL_ = ENDPOINT_URL;
const DISCOVER = { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } } };

async function initialize(endpoint: ReturnType<typeof endpointWith>): Promise<string> {
  const response = await endpoint.handle(post(INITIALIZE));
  assert.equal(response.status, 200);
  await response.text();
  return response.headers.get("mcp-session-id")!;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test("http endpoint: a session and a hub idle past the idle time end; the session's id then gets 404", async () => {
  const endpoint = endpointWith({ idleMs: 100 });
  try {
    const id = await initialize(endpoint);
    const discovered = await endpoint.handle(post(DISCOVER, { "mcp-protocol-version": "2026-07-28" }));
    assert.equal((await discovered.json()).result.supportedVersions[0], "2026-07-28");
    assert.equal(endpoint.sessions, 2);
    const deadline = Date.now() + 5_000;
    while (endpoint.sessions > 0 && Date.now() < deadline) await sleep(25);
    assert.equal(endpoint.sessions, 0);
    const ping = await endpoint.handle(post({ jsonrpc: "2.0", id: 2, method: "ping" }, { "mcp-session-id": id }));
    assert.equal(ping.status, 404);
  } finally {
    await endpoint.close();
  }
});

test("http endpoint: beyond the cap on live sessions, initialize gets 503", async () => {
  const endpoint = endpointWith({ maxSessions: 2 });
  try {
    await initialize(endpoint);
    await initialize(endpoint);
    const third = await endpoint.handle(post(INITIALIZE));
    assert.equal(third.status, 503);
    assert.equal((await third.json()).error.message, "Service unavailable: 2 sessions are live, the most allowed: end one (DELETE) or try later");
    assert.equal(endpoint.sessions, 2);
  } finally {
    await endpoint.close();
  }
});

test("http endpoint: one client's requests in flight are bounded (an open GET stream counts)", async () => {
  const endpoint = endpointWith({ maxInFlightPerClient: 1 });
  try {
    const id = await initialize(endpoint);
    const session = { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" };
    const stream = await endpoint.handle(new Request(URL_, { headers: { accept: "text/event-stream", ...session } }));
    assert.equal(stream.status, 200);
    const refused = await endpoint.handle(post({ jsonrpc: "2.0", id: 2, method: "ping" }, session));
    assert.equal(refused.status, 429);
    assert.match((await refused.json()).error.message, /^Too many requests: client "local" has 1 in flight, the most allowed: wait for an answer$/);
    await stream.body!.cancel();
    const ping = await endpoint.handle(post({ jsonrpc: "2.0", id: 3, method: "ping" }, session));
    assert.equal(ping.status, 200);
    await ping.text();
  } finally {
    await endpoint.close();
  }
});

test("http endpoint: two tokens of one subject with other grants never share a session or a hub", async () => {
  const two = validateConfig({ toolboxes: { public: { mcpServers: {} }, secret: { mcpServers: {} } } });
  const pool = new ServerPool(two, { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {} });
  const wide = { name: "alice", toolboxes: "*" as const };
  const narrow = { name: "alice", toolboxes: ["public"] };
  const endpoint = httpEndpoint({
    // The test's "token" says which grant the request carries.
    authenticate: (request) => Promise.resolve(request.headers.get("x-grant") === "narrow" ? narrow : wide),
    open: (transport, client, onClose) => openSession(transport, { config: two, configPath: "http.json", pool, client, stateless: true, onClose, onError: () => {} }),
  });
  try {
    const id = await initialize(endpoint);
    const stolen = await endpoint.handle(post({ jsonrpc: "2.0", id: 2, method: "ping" }, { "mcp-session-id": id, "x-grant": "narrow" }));
    assert.equal(stolen.status, 404, "the wide token's session is not the narrow token's");
    await stolen.body?.cancel();
    const modern = { "mcp-protocol-version": "2026-07-28" };
    const open = () => ({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "open_toolbox", arguments: { toolbox_name: "secret" }, _meta: DISCOVER.params._meta },
    });
    const wideAnswer = await (await endpoint.handle(post(open(), { ...modern, accept: "application/json" }))).json();
    assert.equal(wideAnswer.result.isError, undefined, JSON.stringify(wideAnswer));
    const narrowAnswer = await (await endpoint.handle(post(open(), { ...modern, accept: "application/json", "x-grant": "narrow" }))).json();
    assert.equal(narrowAnswer.result.isError, true, "the narrow token does not reach the hub the wide one opened");
    assert.match(narrowAnswer.result.content[0].text, /^Toolbox 'secret' not found in configuration/);
  } finally {
    await endpoint.close();
    await pool.closeAll();
  }
});

test("http endpoint: one client's live sessions are bounded (429 beyond), and another client still gets one", async () => {
  const endpoint = endpointWith({
    maxSessionsPerClient: 2,
    authenticate: (request) => Promise.resolve({ name: request.headers.get("x-client") ?? "alice", toolboxes: "*" as const }),
  });
  try {
    await initialize(endpoint);
    await initialize(endpoint);
    const third = await endpoint.handle(post(INITIALIZE));
    assert.equal(third.status, 429);
    assert.equal((await third.json()).error.message, 'Too many sessions: client "alice" has 2 live, the most allowed: end one (DELETE) or try later');
    const hub = await endpoint.handle(post(DISCOVER, { "mcp-protocol-version": "2026-07-28" }));
    assert.equal(hub.status, 429, "a hub counts as a session");
    await hub.body?.cancel();
    const bob = await endpoint.handle(post(INITIALIZE, { "x-client": "bob" }));
    assert.equal(bob.status, 200);
    await bob.text();
  } finally {
    await endpoint.close();
  }
});

test("http endpoint: a body a web page sends without a preflight (text/plain, forms) gets 415 on the 2026-07-28 path too", async () => {
  const endpoint = endpointWith({});
  try {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain; x=application/json"]) {
      const response = await endpoint.handle(post(DISCOVER, { "content-type": type }));
      assert.equal(response.status, 415, type);
      assert.equal((await response.json()).error.message, "Unsupported Media Type: Content-Type must be application/json");
    }
    assert.equal(endpoint.sessions, 0, "no hub was opened");
  } finally {
    await endpoint.close();
  }
});

test("http endpoint: a hub's session keeps its state under the hub's key (the same on any replica); a 2025 session under its id", async () => {
  const keys: (string | undefined)[] = [];
  const pool = new ServerPool(config, { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {} });
  const endpoint = endpointWith({
    open: (transport, client, onClose, stateKey) => {
      keys.push(stateKey);
      return openSession(transport, { config, configPath: "http.json", pool, client, stateless: true, stateKey, onClose, onError: () => {} });
    },
  });
  try {
    const id = await initialize(endpoint);
    const discovered = await endpoint.handle(post(DISCOVER, { "mcp-protocol-version": "2026-07-28" }));
    await discovered.text();
    assert.equal(keys.length, 2);
    assert.equal(keys[0], id, "a 2025-11-25 session: its id, which any replica that serves it knows");
    assert.match(keys[1] ?? "", /local/, "the hub's key names its client");
  } finally {
    await endpoint.close();
    await pool.closeAll();
  }
});

test("http endpoint: a 2026-07-28 call whose answer comes first is plain JSON, even when the client accepts a stream (issue 42)", async () => {
  const endpoint = endpointWith({});
  try {
    const call = { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "open_toolbox", arguments: { toolbox_name: "dev" }, _meta: DISCOVER.params._meta } };
    const response = await endpoint.handle(post(call, { "mcp-protocol-version": "2026-07-28" }));
    assert.equal(response.headers.get("content-type"), "application/json");
    const answer = await response.json();
    assert.equal(answer.id, 4);
    assert.equal(answer.result.isError, undefined, JSON.stringify(answer));
  } finally {
    await endpoint.close();
  }
});

test("http endpoint: a 2026-07-28 call cancelled with notifications/cancelled ends its response unanswered, and gives its request in flight back", async () => {
  const requests = requestLog();
  const withServer = validateConfig({ toolboxes: { dev: { mcpServers: { a: fx("a", {}, requests.env) } } } });
  const endpoint = endpointWith({ maxInFlightPerClient: 2 }, withServer);
  const meta = DISCOVER.params._meta;
  const modern = { "mcp-protocol-version": "2026-07-28" };
  try {
    const open = await endpoint.handle(post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "open_toolbox", arguments: { toolbox_name: "dev" }, _meta: meta } }, modern));
    // Plain JSON when the answer comes first, else on a stream (a server's start on a loaded machine): either is right.
    assert.equal((await answerOf(open)).result.isError, undefined);
    for (const id of ["sleep-1", "sleep-2"]) {
      const params = { name: "use_tool", arguments: { tool: { toolbox: "dev", server: "a", name: "sleep" }, arguments: { ms: 20_000 } }, _meta: meta };
      const before = requests.count("tools/call");
      const pending = endpoint.handle(post({ jsonrpc: "2.0", id, method: "tools/call", params }, modern));
      // Cancelled once the server has the call, not after a guessed 100 ms.
      await eventually(`${id} on the server`, () => requests.count("tools/call"), (count) => count > before);
      const cancel = await endpoint.handle(post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "stop", _meta: meta } }, modern));
      // Two in flight: the second call and its cancel fit only if the first gave its request back.
      assert.equal(cancel.status, 202, `cancelling ${id}: ${cancel.status} ${await cancel.text()}`);
      const ended = await pending;
      // Empty, or (answered later than UPGRADE_MS on a loaded machine) a stream of heartbeats: no message.
      const text = await ended.text();
      assert.deepEqual(text.split("\n").filter((line) => line.startsWith("data: ")), [], `no answer for a cancelled request: ${text}`);
    }
  } finally {
    await endpoint.close();
  }
});

test("http endpoint: /mcp/<toolbox>[,<toolbox>…] scopes a client to those toolboxes among its grants, keeping its name; another path is 404", async () => {
  const three = validateConfig({ toolboxes: { public: { mcpServers: {} }, ops: { mcpServers: {} }, secret: { mcpServers: {} } } });
  const pool = new ServerPool(three, { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {} });
  const opened: { name: string; toolboxes: unknown }[] = [];
  const endpoint = httpEndpoint({
    // The test's "token" says which grant the request carries: every toolbox, or public and ops.
    authenticate: (request) => Promise.resolve({ name: "alice", toolboxes: request.headers.get("x-grant") === "narrow" ? ["public", "ops"] : "*" as const }),
    toolboxes: () => Object.keys(three.toolboxes),
    open: (transport, client, onClose) => {
      opened.push({ name: client.name, toolboxes: client.toolboxes });
      return openSession(transport, { config: three, configPath: "http.json", pool, client, stateless: true, onClose, onError: () => {} });
    },
  });
  const at = (path: string, toolbox: string, grant = "wide") => endpoint.handle(new Request(`http://127.0.0.1:1${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", "mcp-protocol-version": "2026-07-28", "x-grant": grant },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "open_toolbox", arguments: { toolbox_name: toolbox }, _meta: DISCOVER.params._meta } }),
  }));
  const answer = async (path: string, toolbox: string, grant?: string) => {
    const response = await at(path, toolbox, grant);
    assert.equal(response.status, 200, `${path} ${toolbox}`);
    return (await response.json()).result as { isError?: boolean; content: { text: string }[] };
  };
  try {
    assert.equal((await answer("/mcp/public", "public")).isError, undefined, "its toolbox opens");
    const outside = await answer("/mcp/public", "secret");
    assert.equal(outside.isError, true);
    assert.match(outside.content[0].text, /^Toolbox 'secret' not found in configuration/, "outside the scope: as one that does not exist");
    assert.deepEqual(opened.at(-1), { name: "alice", toolboxes: ["public"] }, "narrowed, its name kept");
    assert.equal((await answer("/mcp/public,%20ops", "ops")).isError, undefined, "two toolboxes, encoded as a browser would");
    assert.deepEqual(opened.at(-1), { name: "alice", toolboxes: ["public", "ops"] });
    assert.equal((await answer("/mcp", "secret")).isError, undefined, "no scope: every grant");
    for (const [path, grant] of [["/mcp/secret", "narrow"], ["/mcp/public,secret", "narrow"], ["/mcp/nope", "wide"], ["/mcp/public/x", "wide"], ["/mcp/", "wide"], ["/mcpx", "wide"]]) {
      const response = await at(path, "public", grant);
      assert.equal(response.status, 404, `${path} (${grant})`);
      await response.body?.cancel();
    }
  } finally {
    await endpoint.close();
    await pool.closeAll();
  }
});

test("http endpoint: a body nested deeper than 1,000 levels (a 2026-07-28 request's clientCapabilities) is refused with 400, not a 500", async () => {
  const endpoint = endpointWith({});
  try {
    for (const [depth, status] of [[900, 200], [20_000, 400]] as const) {
      let experimental: unknown = {};
      for (let level = 0; level < depth; level++) experimental = { x: experimental };
      const meta = { ...DISCOVER.params._meta, "io.modelcontextprotocol/clientCapabilities": { experimental } };
      const response = await endpoint.handle(post({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta } }, { "mcp-protocol-version": "2026-07-28", accept: "application/json" }));
      assert.equal(response.status, status, `${depth} levels`);
      const answer = await response.json();
      if (status === 400) assert.deepEqual(answer.error, { code: -32600, message: "Invalid Request: nested deeper than 1000 levels" });
    }
  } finally {
    await endpoint.close();
  }
});
