/**
 * Clients kept apart (issue 30, isolation): sessions of different clients in one process, each a
 * real SDK client over in-memory web streams (as tests/upstream/session.test.ts opens them), over
 * one pool. A server that keeps state in its process shows each client gets processes of its own,
 * named to it by `${WORKBENCH_CLIENT}`, and never sees another's calls, questions or log lines;
 * `"share": "all"` gives one process; the memory server with `${WORKBENCH_CLIENT}` in its file path
 * keeps one file per client. No process is left.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import process from "node:process";
import { platform } from "#platform";
import { expandConfig, validateConfig, type WorkbenchConfig } from "../../src/config/index.ts";
import { ServerPool } from "../../src/toolboxes/pool.ts";
import { openSession, type UpstreamSession } from "../../src/upstream/session.ts";
import type { ClientIdentity } from "../../src/upstream/client-identity.ts";
import { StreamTransport } from "../../src/transport/stream-transport.ts";
import { type CallToolResult, Client, ElicitRequestSchema, LoggingMessageNotificationSchema } from "../helpers/sdk.ts";
import { fixtureServer, npmServer } from "../helpers/runtime.ts";
import { tempDir } from "../helpers/workbench.ts";
import { descendants, waitGone } from "../helpers/procs.ts";
import { startHttpFixture } from "../helpers/http-fixture.ts";

const state = (extra: Record<string, unknown>) => fixtureServer("client-state-server.ts", extra);
const memoryDir = tempDir();
const config = expandConfig(validateConfig({
  toolboxes: {
    dev: { mcpServers: { state: state({ env: { STATE_CLIENT: "${WORKBENCH_CLIENT}" } }) } },
    stateless: { mcpServers: { state: state({ env: { STATE_CLIENT: "everyone" }, share: "all" }) } },
    notes: { mcpServers: { memory: { ...npmServer("memory"), env: { MEMORY_FILE_PATH: `${memoryDir}/\${WORKBENCH_CLIENT}.jsonl` } } } },
  },
}), {});
const host = { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {} };
const TIMEOUT = { timeout: 20_000 };
const ALICE: ClientIdentity = { name: "alice", toolboxes: "*" };
const BOB: ClientIdentity = { name: "bob", toolboxes: "*" };

interface Peer {
  client: Client;
  session: UpstreamSession;
  asked: string[];
  logs: string[];
}

/** A session for `identity` (none: the stdio default), and an SDK client on it that answers questions with `name`. */
async function connect(pool: ServerPool, name: string, identity?: ClientIdentity, workbench: WorkbenchConfig = config): Promise<Peer> {
  const up = new TransformStream<Uint8Array, Uint8Array>();
  const down = new TransformStream<Uint8Array, Uint8Array>();
  const session = await openSession(new StreamTransport(up.readable, down.writable), {
    config: workbench,
    configPath: "isolation.json",
    pool,
    ...(identity && { client: identity }),
    onClose: () => {},
    onError: () => {},
  });
  const client = new Client({ name, version: "1" }, { capabilities: { elicitation: { form: {} } } });
  const asked: string[] = [];
  const logs: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params.message);
    return { action: "accept", content: { name } };
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => void logs.push(String(params.data)));
  await client.connect(new StreamTransport(down.readable, up.writable));
  await client.setLoggingLevel("info");
  return { client, session, asked, logs };
}

const textOf = (result: CallToolResult) => result.content.map((item) => item.type === "text" ? item.text : "").join("");
async function use(peer: Peer, toolbox: string, server: string, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = await peer.client.callTool({ name: "use_tool", arguments: { tool: { toolbox, server, name }, arguments: args } }, undefined, TIMEOUT) as CallToolResult;
  assert.notEqual(result.isError, true, textOf(result));
  return textOf(result);
}
async function open(peer: Peer, toolbox: string): Promise<void> {
  const result = await peer.client.callTool({ name: "open_toolbox", arguments: { toolbox_name: toolbox } }, undefined, TIMEOUT) as CallToolResult;
  assert.notEqual(result.isError, true, textOf(result));
}
type Seen = { pid: number; count: number; notes: string[]; client: string };
const seen = async (peer: Peer, toolbox = "dev") => JSON.parse(await use(peer, toolbox, "state", "seen")) as Seen;
const stateChildren = () => descendants(process.pid).filter((child) => child.cmdline.includes("client-state-server.ts")).map((child) => child.pid);

const pools: ServerPool[] = [];
after(async () => {
  await Promise.allSettled(pools.map((pool) => pool.closeAll()));
});

async function closeAll(pool: ServerPool, peers: Peer[]): Promise<void> {
  await Promise.all(peers.map(async (peer) => {
    await peer.client.close();
    await peer.session.close();
  }));
  assert.equal(pool.running, 0, "no server is left running");
}

test("isolation: each client its own process, named by ${WORKBENCH_CLIENT}; no calls, questions or log lines cross", TIMEOUT, async () => {
  const pool = new ServerPool(config, host);
  pools.push(pool);
  const [alice, bob] = [await connect(pool, "alice", ALICE), await connect(pool, "bob", BOB)];
  await Promise.all([open(alice, "dev"), open(bob, "dev")]);

  await use(alice, "dev", "state", "note", { text: "alice-1" });
  await use(bob, "dev", "state", "note", { text: "bob-1" });
  await use(alice, "dev", "state", "note", { text: "alice-2" });
  const [a, b] = [await seen(alice), await seen(bob)];
  assert.notEqual(a.pid, b.pid, "two clients, two processes");
  assert.deepEqual([a.client, a.count, a.notes], ["alice", 2, ["alice-1", "alice-2"]]);
  assert.deepEqual([b.client, b.count, b.notes], ["bob", 1, ["bob-1"]]);

  // Questions go to the client whose process asked, with calls of both in flight at once.
  const answers = await Promise.all([use(alice, "dev", "state", "ask", { what: "deploy" }), use(bob, "dev", "state", "ask", { what: "rollback" })]);
  assert.deepEqual(answers, ["deploy answered by alice", "rollback answered by bob"]);
  assert.deepEqual([alice.asked, bob.asked], [["Who answers deploy?"], ["Who answers rollback?"]]);

  // Log lines: each client hears its own process only.
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(alice.logs, ["noted alice-1", "noted alice-2"]);
  assert.deepEqual(bob.logs, ["noted bob-1"]);

  // A second session of the same client is on that client's process; a session that names no
  // client (stdio) is "local", on a process of its own.
  const alice2 = await connect(pool, "alice again", ALICE);
  const local = await connect(pool, "local");
  await Promise.all([open(alice2, "dev"), open(local, "dev")]);
  assert.equal((await seen(alice2)).pid, a.pid);
  const l = await seen(local);
  assert.deepEqual([l.client, l.count], ["local", 0]);
  assert.equal(new Set([a.pid, b.pid, l.pid]).size, 3);

  const pids = stateChildren();
  await closeAll(pool, [alice, bob, alice2, local]);
  assert.deepEqual(await waitGone(pids, 5_000), []);
});

test("isolation: a server with \"share\": \"all\" is one process for every client", TIMEOUT, async () => {
  const pool = new ServerPool(config, host);
  pools.push(pool);
  const before = new Set(stateChildren());
  const [alice, bob] = [await connect(pool, "alice", ALICE), await connect(pool, "bob", BOB)];
  await Promise.all([open(alice, "stateless"), open(bob, "stateless")]);
  await use(alice, "stateless", "state", "note", { text: "from alice" });
  await use(bob, "stateless", "state", "note", { text: "from bob" });
  const [a, b] = [await seen(alice, "stateless"), await seen(bob, "stateless")];
  assert.equal(a.pid, b.pid, "one process");
  assert.deepEqual(b.notes, ["from alice", "from bob"]);
  assert.deepEqual(stateChildren().filter((pid) => !before.has(pid)), [a.pid]);
  await closeAll(pool, [alice, bob]);
  assert.deepEqual(await waitGone([a.pid], 5_000), []);
});

test("isolation: the memory server with ${WORKBENCH_CLIENT} in MEMORY_FILE_PATH: alice writes, bob reads nothing of it", TIMEOUT, async () => {
  const pool = new ServerPool(config, host);
  pools.push(pool);
  const [alice, bob] = [await connect(pool, "alice", ALICE), await connect(pool, "bob", BOB)];
  await Promise.all([open(alice, "notes"), open(bob, "notes")]);
  const entity = { name: "alice-secret", entityType: "note", observations: ["the launch code is 1234"] };
  await use(alice, "notes", "memory", "create_entities", { entities: [entity] });
  const graph = (text: string) => JSON.parse(text) as { entities: { name: string }[] };
  assert.deepEqual(graph(await use(alice, "notes", "memory", "read_graph")).entities.map((one) => one.name), ["alice-secret"]);
  const bobs = await use(bob, "notes", "memory", "read_graph");
  assert.deepEqual(graph(bobs).entities, []);
  assert.doesNotMatch(bobs, /launch code/);
  assert.match(readFileSync(`${memoryDir}/alice.jsonl`, "utf8"), /alice-secret/);
  assert.equal(existsSync(`${memoryDir}/bob.jsonl`) && readFileSync(`${memoryDir}/bob.jsonl`, "utf8").includes("alice"), false);
  await closeAll(pool, [alice, bob]);
});

test("isolation: a remote server is one MCP session per client too, and one for all with \"share\": \"all\"", TIMEOUT, async () => {
  const fixture = await startHttpFixture();
  try {
    const remote = validateConfig({
      toolboxes: {
        own: { mcpServers: { h: { url: fixture.url("/mcp") } } },
        all: { mcpServers: { h: { url: fixture.url("/mcp?shared"), share: "all" } } },
      },
    });
    const pool = new ServerPool(remote, host);
    pools.push(pool);
    const [alice, bob] = [await connect(pool, "alice", ALICE, remote), await connect(pool, "bob", BOB, remote)];
    // The fixture digests the session header of every request: the last one is this call's own.
    const sessionOf = async (peer: Peer, toolbox: string) => {
      await open(peer, toolbox);
      const digests = JSON.parse(await use(peer, toolbox, "h", "headers", { name: "mcp-session-id" })) as string[];
      return digests.at(-1);
    };
    assert.notEqual(await sessionOf(alice, "own"), await sessionOf(bob, "own"));
    assert.equal(await sessionOf(alice, "all"), await sessionOf(bob, "all"));
    await closeAll(pool, [alice, bob]);
  } finally {
    await fixture.stop();
  }
});
