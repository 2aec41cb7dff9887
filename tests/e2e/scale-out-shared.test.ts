/**
 * Replicas behind one address with nothing sticky (issue 48): nginx sends each request to the next
 * of three `serve --http --store redis://…` replicas in turn; one real redis-server keeps what the
 * sessions keep. 20 clients, ten of each protocol revision (the official SDK clients), make 50
 * calls each; one replica is killed (SIGKILL) between two calls of every client, halfway. Every
 * call succeeds, no client sees "session not found" or initializes again, none sees another's
 * data, and no process is left. A result cut into pages on one replica is read on, page by page,
 * through the others. Skips, saying why, where nginx or redis-server is missing.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { createHash } from "node:crypto";
import { Client as V2Client, StreamableHTTPClientTransport as V2HttpTransport } from "@modelcontextprotocol/client";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, Client } from "../helpers/sdk.ts";
import { type HttpWorkbench, startHttpWorkbench } from "../helpers/http-workbench.ts";
import { nginxMissing, startNginx } from "../helpers/nginx.ts";
import { redisMissing, startRedis } from "../helpers/redis.ts";
import { fx } from "../helpers/toolbox.ts";
import { descendants, isAlive, waitGone } from "../helpers/procs.ts";

const skip = nginxMissing() ?? redisMissing();
if (skip) console.log(`SKIPPED: replicas over a shared store behind nginx: ${skip}`);

const CLIENTS = 20;
const CALLS = 50;
const KILL_AT = 25;
const TIMEOUT_MS = 30_000;
/** Four identities, five clients each: each identity has processes of its own on each replica. */
const TOKENS = ["alice", "bob", "carol", "dave"].map((name) => ({ name, token: `${name}-token-0123456789` }));
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const CONFIG = {
  toolboxes: { dev: { mcpServers: { fx: fx("replica") } } },
  serve: { clients: Object.fromEntries(TOKENS.map(({ name, token }) => [name, { tokenSha256: sha256(token), toolboxes: ["dev"] }])) },
};

const textOf = (result: { content?: unknown }) =>
  ((result.content ?? []) as { type: string; text?: string }[]).map((item) => item.type === "text" ? item.text : "").join("");
const echoArgs = (text: string) => ({ tool: { toolbox: "dev", server: "fx", name: "echo" }, arguments: { text } });
const replicaOf = (workbench: HttpWorkbench) => new URL(workbench.url).host;

interface Caller {
  echo(text: string): Promise<string>;
  /** use_tool with these arguments, the answer's text. */
  use(args: Record<string, unknown>): Promise<string>;
  close(): Promise<unknown>;
}

async function legacyClient(url: string, token: string): Promise<Caller> {
  const client = new Client({ name: "shared-2025", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } }, undefined, { timeout: TIMEOUT_MS });
  const use = async (args: Record<string, unknown>) =>
    textOf(await client.callTool({ name: "use_tool", arguments: args }, undefined, { timeout: TIMEOUT_MS }) as CallToolResult);
  return { echo: (text) => use(echoArgs(text)), use, close: () => client.close().catch(() => {}) };
}

async function modernClient(url: string, token: string): Promise<Caller> {
  const client = new V2Client({ name: "shared-2026", version: "2.4.0" }, { capabilities: {}, versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new V2HttpTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  const use = async (args: Record<string, unknown>) => textOf(await client.callTool({ name: "use_tool", arguments: args }, { timeout: TIMEOUT_MS }));
  return { echo: (text) => use(echoArgs(text)), use, close: () => client.close().catch(() => {}) };
}

test("replicas over a shared store: round robin, one replica killed mid-run; every call succeeds, no session lost, no process left", { skip, timeout: 300_000 }, async () => {
  const redis = await startRedis();
  const replicas = await Promise.all([0, 1, 2].map(() => startHttpWorkbench(CONFIG, {}, "127.0.0.1:0", ["--store", redis.url])));
  const nginx = await startNginx(replicas.map(replicaOf), "round-robin");
  const watched = new Set<number>([nginx.pid, redis.pid(), ...replicas.map((replica) => replica.pid)]);
  const clients: Caller[] = [];
  try {
    for (let index = 0; index < CLIENTS; index++) {
      const { token } = TOKENS[index % TOKENS.length];
      clients.push(await (index < CLIENTS / 2 ? legacyClient(nginx.url, token) : modernClient(nginx.url, token)));
    }
    const failures: string[] = [];
    let killed!: () => void;
    const afterKill = new Promise<void>((resolve) => (killed = resolve));
    const arrived: Promise<void>[] = [];
    const run = async (caller: Caller, index: number) => {
      let arrive!: () => void;
      arrived.push(new Promise<void>((resolve) => (arrive = resolve)));
      for (let call = 0; call < CALLS; call++) {
        if (call === KILL_AT) {
          arrive();
          await afterKill;
        }
        const text = `client${index}-${call}`;
        const answer = await caller.echo(text).catch((error) => `${error}`);
        if (answer !== `replica: ${text}`) failures.push(`client ${index} call ${call}: ${answer}`);
      }
    };
    const running = Promise.all(clients.map(run));
    await Promise.all(arrived);
    const victim = replicas[1];
    for (const replica of replicas) for (const child of descendants(replica.pid)) watched.add(child.pid);
    const reaped = new Promise((resolve) => victim.child.once("exit", resolve));
    victim.child.kill("SIGKILL");
    await Promise.race([reaped, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    assert.equal(isAlive(victim.pid), false);
    killed();
    await running;
    // Requests that reached a replica (nginx's own readiness probe reaches none).
    const logged = nginx.log().split("\n").filter((line) => line !== "" && line.split("|")[1] !== "-");
    const statuses = logged.map((line) => line.split("|")[3]);
    assert.deepEqual(failures, [], nginx.errors());
    assert.equal(statuses.filter((status) => status === "404").length, 0, `no request was told its session is not found:\n${logged.filter((line) => line.split("|")[3] === "404").join("\n")}`);
    assert.ok(statuses.length > CLIENTS * CALLS, `${statuses.length} requests logged`);
    for (const replica of replicas) for (const child of descendants(replica.pid)) watched.add(child.pid);
    assert.ok(new Set(nginx.log().split("\n").map((line) => line.split("|")[1])).size >= 3, "requests reached every replica");
  } finally {
    await Promise.allSettled(clients.map((client) => client.close()));
    await Promise.allSettled(replicas.map((replica) => replica.stop()));
    await nginx.stop();
    await redis.stop();
  }
  const left = await waitGone([...watched], 10_000);
  for (const pid of left) if (isAlive(pid)) process.kill(pid, "SIGKILL");
  assert.deepEqual(left, [], "no process is left");
});

/** A result's pages, read on from the first by the call each page's note names (at most 50), joined; and the ids read. */
async function readOn(caller: Caller, first: string): Promise<{ whole: string; ids: string[] }> {
  const NOTE = /This result is over maxResultTokens[\s\S]*$|Result 'r\d+': characters[\s\S]*$/;
  let whole = first.replace(NOTE, "");
  const ids: string[] = [];
  let page = first;
  for (let read = 0; read < 50; read++) {
    const next = /"arguments":\{"id":"(r\d+)","offset":(\d+)\}/.exec(page);
    if (!next) return { whole, ids };
    ids.push(next[1]);
    page = await caller.use({ tool: { toolbox: "dev", server: "workbench", name: "read_result" }, arguments: { id: next[1], offset: Number(next[2]) } });
    whole += page.replace(NOTE, "");
  }
  assert.fail("More than 50 pages");
}

test("replicas over a shared store: a result cut into pages on one replica is read on through the others, by either revision's client", { skip, timeout: 120_000 }, async () => {
  const config = { ...CONFIG, toolboxes: { dev: { mcpServers: { fx: fx("replica", { maxResultTokens: 1_000 }) } } } };
  const redis = await startRedis();
  const replicas = await Promise.all([0, 1, 2].map(() => startHttpWorkbench(config, {}, "127.0.0.1:0", ["--store", redis.url])));
  const nginx = await startNginx(replicas.map(replicaOf), "round-robin");
  const clients: Caller[] = [];
  try {
    clients.push(await legacyClient(nginx.url, TOKENS[0].token), await modernClient(nginx.url, TOKENS[1].token));
    for (const [index, caller] of clients.entries()) {
      const text = Array.from({ length: 1_500 }, (_, line) => `client ${index} line ${line}`).join("\n");
      const { whole, ids } = await readOn(caller, await caller.echo(text));
      assert.ok(ids.length >= 3, `${ids.length} pages read on`);
      assert.equal(whole, `replica: ${text}`, `client ${index}: the pages joined are the result`);
    }
    const reached = new Set(nginx.log().split("\n").filter((line) => line.includes("|")).map((line) => line.split("|")[1]));
    assert.ok(reached.size >= 3, "the pages were read through every replica");
  } finally {
    await Promise.allSettled(clients.map((client) => client.close()));
    await Promise.allSettled(replicas.map((replica) => replica.stop()));
    await nginx.stop();
    await redis.stop();
  }
});
