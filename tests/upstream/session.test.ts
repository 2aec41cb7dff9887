/**
 * Several sessions in one process (issue 32, section 2): real SDK clients, each over an in-memory
 * pair of web streams to a session of its own, over one pool of real fixture servers on stdio.
 * Each session has its own toolboxes and log level; a question goes to the session whose call
 * asked, and to none when a guess would have to choose between two; a session that closes leaves
 * the other's call running; other capabilities get another process; none is left at the end.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { platform } from "#platform";
import { validateConfig } from "../../src/config/index.ts";
import { ServerPool } from "../../src/toolboxes/pool.ts";
import { openSession, type UpstreamSession } from "../../src/upstream/session.ts";
import { StreamTransport } from "../../src/transport/stream-transport.ts";
import {
  type CallToolResult,
  type ClientCapabilities,
  Client,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
} from "../helpers/sdk.ts";
import { eventually, firstProgress, fx, spawnLog } from "../helpers/toolbox.ts";
import { descendants, waitGone } from "../helpers/procs.ts";

const spawns = spawnLog();
const config = validateConfig({
  toolboxes: {
    dev: { mcpServers: { fx: fx("shared", {}, { FIXTURE_CLIENT_FEATURES: "1", ...spawns.env }) } },
    ops: { mcpServers: { fx: fx("ops", {}, { FIXTURE_CLIENT_FEATURES: "1" }) } },
  },
});
const host = { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {} };
const TIMEOUT = { timeout: 20_000 };

interface Peer {
  client: Client;
  session: UpstreamSession;
  /** Resolves once the session saw its client leave. */
  closed: Promise<void>;
  /** The questions this client was asked. */
  asked: string[];
  logs: { level: string; data: unknown }[];
}

/** A client over two TransformStreams: our StreamTransport on the session's side, and on the client's. */
async function connect(pool: ServerPool, name: string, capabilities: ClientCapabilities = { elicitation: { form: {} } }): Promise<Peer> {
  const up = new TransformStream<Uint8Array, Uint8Array>();
  const down = new TransformStream<Uint8Array, Uint8Array>();
  let sawClose!: () => void;
  const closed = new Promise<void>((resolve) => (sawClose = resolve));
  const session = await openSession(new StreamTransport(up.readable, down.writable), {
    config,
    configPath: "sessions.json",
    pool,
    onClose: () => sawClose(),
    onError: () => {},
  });
  const client = new Client({ name, version: "1" }, { capabilities });
  const asked: string[] = [];
  const logs: Peer["logs"] = [];
  if (capabilities.elicitation) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: "accept", content: { name } };
    });
  }
  client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => void logs.push({ level: params.level, data: params.data }));
  await client.connect(new StreamTransport(down.readable, up.writable));
  return { client, session, closed, asked, logs };
}

const textOf = (result: CallToolResult) => result.content.map((item) => item.type === "text" ? item.text : "").join("");
const use = (peer: Peer, toolbox: string, name: string, args: Record<string, unknown> = {}) =>
  peer.client.callTool({ name: "use_tool", arguments: { tool: { toolbox, server: "fx", name }, arguments: args } }, undefined, TIMEOUT) as Promise<CallToolResult>;
/** A sleep of `ms` on dev's server; `begun` resolves once the server has it (its first progress). */
function sleepOn(peer: Peer, ms: number): { result: Promise<CallToolResult>; begun: () => Promise<void> } {
  const progress = firstProgress(`a sleep of ${ms} ms`);
  const params = { name: "use_tool", arguments: { tool: { toolbox: "dev", server: "fx", name: "sleep" }, arguments: { ms } } };
  const result = peer.client.callTool(params, undefined, { ...TIMEOUT, onprogress: progress.onprogress }) as Promise<CallToolResult>;
  return { result, begun: progress.begun };
}
const open = (peer: Peer, toolbox: string) => peer.client.callTool({ name: "open_toolbox", arguments: { toolbox_name: toolbox } }, undefined, TIMEOUT);
const fixtureChildren = () => descendants(process.pid).filter((child) => child.cmdline.includes("fixture-server.ts")).map((child) => child.pid);

const pools: ServerPool[] = [];
after(async () => {
  await Promise.allSettled(pools.map((pool) => pool.closeAll()));
});

test("sessions: each its own toolboxes, log level and questions, over one shared process; a session that leaves leaves the other's call running", async () => {
  const pool = new ServerPool(config, host);
  pools.push(pool);
  const [a, b] = [await connect(pool, "alice"), await connect(pool, "bob")];
  const startsBefore = spawns.spawned().length;

  // Toolboxes: what A opened is not open for B.
  await open(a, "dev");
  assert.equal(textOf(await use(a, "dev", "echo", { text: "hi" })), "shared: hi");
  assert.match(textOf(await use(b, "dev", "echo", { text: "hi" })), /^Error executing tool: Toolbox 'dev' is not open; /);
  await open(b, "dev");
  assert.equal(spawns.spawned().length - startsBefore, 1, "the two sessions share one process");

  // Questions go to the session whose call asked, and never to the other.
  assert.equal(textOf(await use(a, "dev", "confirm", { what: "deploy" })), "deploy confirmed by alice");
  assert.equal(textOf(await use(b, "dev", "confirm", { what: "rollback" })), "rollback confirmed by bob");
  assert.deepEqual([a.asked, b.asked], [["Who confirms deploy?"], ["Who confirms rollback?"]]);

  // With calls of both sessions in flight, a 2025 stdio server's question cannot be placed: it goes to neither.
  // A's call is on the server (its first progress) before B's asks, and long enough to outlast it on a loaded machine.
  const sleeping = sleepOn(a, 5_000);
  await sleeping.begun();
  const refused = await use(b, "dev", "confirm", { what: "both" });
  assert.equal(refused.isError, true);
  assert.match(textOf(refused), /The server is shared by 2 sessions with calls in flight, and nothing says which call asked: the question goes to none of them/);
  assert.equal(textOf(await sleeping.result), "shared slept 5000 ms");
  assert.deepEqual([a.asked.length, b.asked.length], [1, 1], "no session was asked");

  // Log levels: the server logs at the most verbose one set; each session gets what its own admits.
  await a.client.setLoggingLevel("warning");
  await b.client.setLoggingLevel("error");
  await use(b, "dev", "logs", { logger: "b" });
  await use(a, "dev", "logs", { logger: "a" });
  // Notices may come after the call's answer: awaited, not given a guessed 100 ms.
  await eventually("the log messages", () => [b.logs.length, a.logs.length], ([bs, as]) => bs >= 4 && as >= 5);
  assert.deepEqual(b.logs.map((log) => log.level), ["error", "critical", "alert", "emergency"]);
  assert.deepEqual(a.logs.map((log) => log.level), ["warning", "error", "critical", "alert", "emergency"]);
  assert.ok(a.logs.every((log) => String(log.data).startsWith("shared")));

  // B leaves while A's call runs on the process they share: A's call ends with its result.
  const running = sleepOn(a, 800);
  await running.begun();
  await b.client.close();
  await b.closed;
  assert.equal(textOf(await running.result), "shared slept 800 ms");
  assert.equal(textOf(await use(a, "dev", "echo", { text: "still here" })), "shared: still here");

  // A leaves too: no server is left running.
  await a.client.close();
  await a.closed;
  await a.session.close();
  assert.deepEqual(await waitGone(fixtureChildren(), 5_000), []);
  assert.equal(pool.running, 0);
});

test("sessions: other declared capabilities get another process; none is left when both close", async () => {
  const pool = new ServerPool(config, host);
  pools.push(pool);
  const startsBefore = spawns.spawned().length;
  const asking = await connect(pool, "alice");
  const plain = await connect(pool, "bob", {});
  await open(asking, "dev");
  await open(plain, "dev");
  const pids = await Promise.all([asking, plain].map(async (peer) => textOf(await use(peer, "dev", "pid"))));
  assert.equal(spawns.spawned().length - startsBefore, 2, "one process per capability set");
  assert.notEqual(pids[0], pids[1]);
  // The server without elicitation never sees it: its tool finds no client to ask.
  assert.notEqual(textOf(await use(plain, "dev", "confirm", { what: "x" })), "x confirmed by bob");
  assert.deepEqual(plain.asked, []);

  await Promise.all([asking, plain].map(async (peer) => {
    await peer.client.close();
    await peer.closed;
    await peer.session.close();
  }));
  assert.deepEqual(await waitGone(pids.map(Number), 5_000), []);
  assert.equal(pool.running, 0);
});
