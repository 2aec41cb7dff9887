/**
 * Replicas over one store, in process: two endpoints (each with its own servers' processes) over
 * one store are two replicas behind a balancer that keeps nobody anywhere. A 2025-11-25 session
 * opened on one goes on on the other (restored from its record: its open toolboxes, its client);
 * another client presenting its id finds nothing; a DELETE ends it on both; a store that cannot be
 * read answers 503, never 404; what a server tells the session's copy on one replica reaches the
 * client's GET stream on the other.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { platform } from "#platform";
import { validateConfig } from "../../../src/config/index.ts";
import { ServerPool } from "../../../src/toolboxes/pool.ts";
import { openSession } from "../../../src/upstream/session.ts";
import { httpEndpoint } from "../../../src/upstream/http/endpoint.ts";
import { SessionStates } from "../../../src/upstream/session-state.ts";
import { MemoryStore } from "../../../src/store/memory-store.ts";
import type { Store } from "../../../src/store/store.ts";
import { ENDPOINT_URL, INITIALIZE, post } from "../../helpers/http-endpoint.ts";
import { eventually, fx } from "../../helpers/toolbox.ts";
import { fixture, fixtureServer, runScript } from "../../helpers/runtime.ts";
import { CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, PROTOCOL_VERSION_KEY } from "../../../src/protocol/wire.ts";
import { removeTempDirs, tempDir } from "../../helpers/workbench.ts";
import { flakyStore } from "../../helpers/flaky-store.ts";

const CONFIG = validateConfig({ toolboxes: { dev: { mcpServers: { a: fx("a") } } } });
const host = { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {} };
const ALICE = { name: "alice", toolboxes: "*" as const };
const BOB = { name: "bob", toolboxes: "*" as const };
const closing: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closing) await close();
  removeTempDirs();
});

/** A replica: its own pool of processes, the shared store; the "token" header says who calls. */
function replica(store: Store, config = CONFIG) {
  const pool = new ServerPool(config, host);
  const states = new SessionStates(store, () => 60_000);
  const endpoint = httpEndpoint({
    authenticate: (request) => Promise.resolve(request.headers.get("x-client") === "bob" ? BOB : ALICE),
    store,
    open: (transport, client, onClose, stateKey) =>
      openSession(transport, { config, configPath: "r.json", pool, client, states, stateKey, stateless: true, onClose, onError: () => {} }),
  });
  closing.push(async () => {
    await endpoint.close();
    await pool.closeAll();
  });
  return { endpoint, pool };
}

const useEcho = (id: number, text: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "use_tool", arguments: { tool: { toolbox: "dev", server: "a", name: "echo" }, arguments: { text } } },
});

/** The answer's text, from plain JSON or an event stream's message. */
async function answerOf(response: Response): Promise<string> {
  const body = await response.text();
  const json = body.startsWith("{") ? body : body.split("\n").find((line) => line.startsWith("data: "))!.slice(6);
  return JSON.parse(json).result.content[0].text;
}

test("replicas: a session opened on one replica goes on on another; its open toolbox opens there by itself", async () => {
  const store = new MemoryStore();
  const [one, two] = [replica(store), replica(store)];
  const init = await one.endpoint.handle(post(INITIALIZE));
  const id = init.headers.get("mcp-session-id")!;
  await init.text();
  const headers = { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" };
  const open = await one.endpoint.handle(post({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "open_toolbox", arguments: { toolbox_name: "dev" } } }, headers));
  assert.equal(open.status, 200);
  await open.text();
  const there = await two.endpoint.handle(post(useEcho(3, "hi"), headers));
  assert.equal(there.status, 200, "found on the other replica");
  assert.equal(await answerOf(there), "a: hi");
  assert.equal(two.pool.running, 1, "the other replica started its own server");
  const stolen = await two.endpoint.handle(post(useEcho(4, "x"), { ...headers, "x-client": "bob" }));
  assert.equal(stolen.status, 404, "another client's token finds no session");
  await stolen.text();
});

test("replicas: a DELETE on one replica ends the session on every replica", async () => {
  const store = new MemoryStore();
  const [one, two] = [replica(store), replica(store)];
  const init = await one.endpoint.handle(post(INITIALIZE));
  const id = init.headers.get("mcp-session-id")!;
  await init.text();
  const headers = { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" };
  assert.equal((await two.endpoint.handle(post({ jsonrpc: "2.0", id: 2, method: "ping" }, headers))).status, 200);
  const ended = await two.endpoint.handle(new Request("http://127.0.0.1:1/mcp", { method: "DELETE", headers }));
  assert.equal(ended.status, 200);
  for (let i = 0; i < 100 && one.endpoint.sessions > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  for (const { endpoint } of [one, two]) {
    const gone = await endpoint.handle(post({ jsonrpc: "2.0", id: 3, method: "ping" }, headers));
    assert.equal(gone.status, 404);
    await gone.text();
  }
});

test("replicas: a session whose record cannot be read gets 503 with Retry-After, not 404", async () => {
  const { store: flaky, setDown } = flakyStore(new MemoryStore());
  const [one, two] = [replica(flaky), replica(flaky)];
  const init = await one.endpoint.handle(post(INITIALIZE));
  const id = init.headers.get("mcp-session-id")!;
  await init.text();
  setDown(true);
  const response = await two.endpoint.handle(post({ jsonrpc: "2.0", id: 2, method: "ping" }, { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" }));
  assert.equal(response.status, 503);
  assert.equal(response.headers.get("retry-after"), "2");
  assert.match(await response.text(), /The session store memory cannot be reached: Connection refused/);
  setDown(false);
  const back = await two.endpoint.handle(post({ jsonrpc: "2.0", id: 3, method: "ping" }, { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" }));
  assert.equal(back.status, 200, "the store is back: the session goes on");
  await back.text();
});

/** Two replicas over one store with a skills server that says when its variant file changes (the test writes it). */
function watchedReplicas() {
  const variant = `${tempDir()}/variant`;
  writeFileSync(variant, "base\n");
  const env = { FIXTURE_LABEL: "a", FIXTURE_SKILLS_VARIANT_FILE: variant, FIXTURE_SKILLS_WATCH: "1" };
  const skills = validateConfig({ toolboxes: { dev: { mcpServers: { a: fixtureServer("skills-server.ts", { env }) } } } });
  const store = new MemoryStore();
  return { variant, one: replica(store, skills), two: replica(store, skills) };
}

/** An event stream read as it comes (at most 1,000 chunks): what was heard so far, and a stop. */
function reading(stream: Response) {
  let heard = "";
  const reader = stream.body!.getReader();
  const done = (async () => {
    for (let chunk = 0; chunk < 1_000; chunk++) {
      const { done, value } = await reader.read();
      if (done) return;
      heard += new TextDecoder().decode(value);
    }
  })();
  return { heard: () => heard, stop: async () => (await reader.cancel(), await done) };
}

test("replicas: what a server tells the session's copy on one replica (a list changed) reaches the client's GET stream on the other", async () => {
  const { variant, one, two } = watchedReplicas();
  const init = await one.endpoint.handle(post(INITIALIZE));
  const id = init.headers.get("mcp-session-id")!;
  await init.text();
  const headers = { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" };
  const stream = await one.endpoint.handle(new Request(ENDPOINT_URL, { method: "GET", headers: { ...headers, accept: "text/event-stream" } }));
  assert.equal(stream.status, 200);
  const { heard, stop } = reading(stream);
  // Every request of the session goes to the other replica: only there does the server run.
  const open = await two.endpoint.handle(post({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "open_toolbox", arguments: { toolbox_name: "dev" } } }, headers));
  assert.equal(open.status, 200);
  await open.text();
  assert.equal(one.pool.running, 0, "no server runs on the replica that holds the stream");
  const told = () => heard().split("notifications/resources/list_changed").length - 1;
  const before = told();
  writeFileSync(variant, "guide\n");
  await eventually("resources/list_changed on the other replica's stream", told, (count) => count > before, 10_000);
  await stop();
});

test("replicas: the approved retry of a call its 2026-07-28 server asked about runs once across replicas: sent to all at once, then 100 replays, each refused", async () => {
  const modern = { ...runScript(fixture("v2-server.ts"), ["--era", "2026"]), confirm: ["confirm"] };
  const config = validateConfig({ toolboxes: { dev: { mcpServers: { modern } } } });
  const store = new MemoryStore();
  const replicas = [replica(store, config), replica(store, config), replica(store, config)];
  const meta = { [PROTOCOL_VERSION_KEY]: "2026-07-28", [CLIENT_CAPABILITIES_KEY]: { elicitation: { form: {} } }, [CLIENT_INFO_KEY]: { name: "r", version: "1" } };
  const call = (id: number, extra: Record<string, unknown> = {}) =>
    post({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "use_tool", arguments: { tool: { toolbox: "dev", server: "modern", name: "confirm" }, arguments: { what: "deploy" } }, _meta: meta, ...extra },
    }, { "mcp-protocol-version": "2026-07-28", accept: "application/json" });
  const answer = async (at: number, request: Request) => (await (await replicas[at]!.endpoint.handle(request)).json()).result;
  // The user approves on the replica that asked; the server then asks a question of its own.
  const ours = await answer(0, call(1));
  assert.equal(ours.resultType, "input_required", JSON.stringify(ours));
  const [oursKey] = Object.keys(ours.inputRequests);
  const theirs = await answer(0, call(2, { inputResponses: { [oursKey]: { action: "accept", content: {} } }, requestState: ours.requestState }));
  assert.deepEqual(Object.keys(theirs.inputRequests ?? {}), ["who"], JSON.stringify(theirs));
  // Its answer, the retry the approval lets through unasked once: on whichever replica it lands.
  const retry = (id: number) => call(id, { inputResponses: { who: { action: "accept", content: { name: "Ada" } } }, requestState: theirs.requestState });
  const ran = (result: { content?: { text?: string }[] }) => result.content?.[0]?.text === "deploy confirmed by Ada";
  const atOnce = await Promise.all(replicas.map((_, index) => answer(index, retry(10 + index))));
  assert.equal(atOnce.filter(ran).length, 1, JSON.stringify(atOnce));
  let refused = 0;
  for (let replay = 0; replay < 100; replay++) if (!ran(await answer(replay % 3, retry(100 + replay)))) refused++;
  assert.equal(refused, 100, "each replay is asked about again, never run");
});

test("replicas: what a server tells a 2026-07-28 client's hub on one replica reaches the client's listen on the other", async () => {
  const { variant, one, two } = watchedReplicas();
  // Capabilities of 20 KiB: the hub's key is long, its key in the feed is not.
  const capabilities = { experimental: { large: { pad: "x".repeat(20_000) } } };
  const meta = { [PROTOCOL_VERSION_KEY]: "2026-07-28", [CLIENT_CAPABILITIES_KEY]: capabilities, [CLIENT_INFO_KEY]: { name: "r", version: "1" } };
  const modern = { "mcp-protocol-version": "2026-07-28" };
  const listen = { jsonrpc: "2.0", id: 1, method: "subscriptions/listen", params: { notifications: { resourcesListChanged: true }, _meta: meta } };
  const stream = await one.endpoint.handle(post(listen, { ...modern, accept: "text/event-stream, application/json" }));
  assert.equal(stream.status, 200);
  const { heard, stop } = reading(stream);
  await eventually("the listen acknowledged", heard, (text) => text.includes("notifications/subscriptions/acknowledged"), 10_000);
  const open = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "open_toolbox", arguments: { toolbox_name: "dev" }, _meta: meta } };
  const opened = await two.endpoint.handle(post(open, { ...modern, accept: "application/json" }));
  assert.equal(opened.status, 200);
  await opened.text();
  assert.equal(one.pool.running, 0, "no server runs on the replica that holds the listen");
  const told = () => heard().split("notifications/resources/list_changed").length - 1;
  const before = told();
  writeFileSync(variant, "guide\n");
  await eventually("resources/list_changed on the other replica's listen", told, (count) => count > before, 10_000);
  assert.match(heard(), /"io.modelcontextprotocol\/subscriptionId":1/, "tagged with the listen's id");
  await stop();
});

test("replicas: a store back after an outage tells each 2026-07-28 listen that its lists may have changed", async () => {
  const back = new Set<() => void>();
  const store = Object.assign(new MemoryStore({ shared: true }), {
    onRestored: (listener: () => void) => (back.add(listener), () => void back.delete(listener)),
  });
  const one = replica(store);
  const meta = { [PROTOCOL_VERSION_KEY]: "2026-07-28", [CLIENT_CAPABILITIES_KEY]: {}, [CLIENT_INFO_KEY]: { name: "r", version: "1" } };
  const listen = { jsonrpc: "2.0", id: 1, method: "subscriptions/listen", params: { notifications: { toolsListChanged: true }, _meta: meta } };
  const stream = await one.endpoint.handle(post(listen, { "mcp-protocol-version": "2026-07-28", accept: "text/event-stream, application/json" }));
  const { heard, stop } = reading(stream);
  await eventually("the listen acknowledged", heard, (text) => text.includes("notifications/subscriptions/acknowledged"), 10_000);
  for (const listener of back) listener();
  await eventually("tools/list_changed", heard, (text) => text.includes("notifications/tools/list_changed"), 10_000);
  assert.ok(!heard().includes("notifications/prompts/list_changed"), "only what the listen asked for");
  await stop();
});
