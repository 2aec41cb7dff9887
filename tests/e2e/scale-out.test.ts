/**
 * Scale-out behind a load balancer (issue 30): nginx keeps each client on one of two `serve --http`
 * replicas by a consistent hash of its Authorization header. A 2025-11-25 client (SDK 1.32) and a
 * 2026-07-28 client (SDK v2), both on the same replica, make 200 calls each with zero errors and
 * zero cross-client data; their replica is killed (SIGKILL) halfway, between two calls; after
 * that every call of the 2026 client succeeds on the other replica, and the 2025 client gets 404
 * for its session once, initializes again and succeeds. No process is left.
 * Each token is a client of `serve.clients` (alice, and bob's candidates): the replicas know who is
 * who, and each client has its own server processes. Skips, saying why, where nginx is not installed.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { createHash } from "node:crypto";
import { Client as V2Client, StreamableHTTPClientTransport as V2HttpTransport } from "@modelcontextprotocol/client";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, Client } from "../helpers/sdk.ts";
import { type HttpWorkbench, startHttpWorkbench } from "../helpers/http-workbench.ts";
import { nginxMissing, startNginx } from "../helpers/nginx.ts";
import { fx } from "../helpers/toolbox.ts";
import { descendants, isAlive, waitGone } from "../helpers/procs.ts";

const skip = nginxMissing();
if (skip) console.log(`SKIPPED: scale-out behind nginx: ${skip}`);

const CALLS = 200;
const KILL_AT = 100;
const TIMEOUT_MS = 20_000;
const ALICE = "Bearer alice-2025";
const BOBS = Array.from({ length: 32 }, (_, index) => `Bearer bob-2026-${index}`);
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const client = (authorization: string) => ({ tokenSha256: sha256(authorization.slice("Bearer ".length)), toolboxes: ["dev"] });
const CONFIG = {
  toolboxes: { dev: { mcpServers: { fx: fx("replica") } } },
  serve: { clients: Object.fromEntries([["alice", client(ALICE)], ...BOBS.map((bob, index) => [`bob-${index}`, client(bob)])]) },
};

const textOf = (result: { content?: unknown }) =>
  ((result.content ?? []) as { type: string; text?: string }[]).map((item) => item.type === "text" ? item.text : "").join("");
const echoArgs = (text: string) => ({ tool: { toolbox: "dev", server: "fx", name: "echo" }, arguments: { text } });
const replicaOf = (workbench: HttpWorkbench) => new URL(workbench.url).host;

/** The 2025 client: a session on whichever replica nginx picks; `fresh` starts a new one there. */
function legacyClient(url: string, authorization: string) {
  let client: Client;
  const fresh = async () => {
    client = new Client({ name: "scale-2025", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: authorization } } }));
    await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } }, undefined, { timeout: TIMEOUT_MS });
  };
  return {
    fresh,
    echo: async (text: string) => textOf(await client.callTool({ name: "use_tool", arguments: echoArgs(text) }, undefined, { timeout: TIMEOUT_MS }) as CallToolResult),
    close: () => client.close().catch(() => {}),
  };
}

/** The 2026 client: every request stands alone; use_tool opens the toolbox on a replica that never saw it. */
async function modernClient(url: string, authorization: string) {
  const client = new V2Client({ name: "scale-2026", version: "2.4.0" }, { capabilities: {}, versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new V2HttpTransport(new URL(url), { requestInit: { headers: { Authorization: authorization } } }));
  return {
    echo: async (text: string) => textOf(await client.callTool({ name: "use_tool", arguments: echoArgs(text) }, { timeout: TIMEOUT_MS })),
    close: () => client.close().catch(() => {}),
  };
}

test("scale-out: two replicas behind nginx, one killed mid-run; 2026 calls go on, a 2025 client starts one new session; no process left", { skip, timeout: 180_000 }, async () => {
  const replicas = [await startHttpWorkbench(CONFIG), await startHttpWorkbench(CONFIG)];
  const nginx = await startNginx(replicas.map(replicaOf));
  const watched = new Set<number>([nginx.pid, ...replicas.map((replica) => replica.pid)]);
  const clients: { close(): Promise<unknown> }[] = [];
  try {
    const alice = legacyClient(nginx.url, ALICE);
    clients.push(alice);
    await alice.fresh();
    const [home] = nginx.routes(ALICE);
    const victim = replicas.find((replica) => replicaOf(replica) === home)!;
    assert.ok(victim, `alice reached ${home}`);
    // Bob's token is chosen so that he lands where alice is: the kill then hits both eras.
    let bobToken = "";
    for (let index = 0; index < BOBS.length && !bobToken; index++) {
      const candidate = BOBS[index];
      await fetch(nginx.url, { method: "DELETE", headers: { Authorization: candidate } }).then((response) => response.body?.cancel());
      if (nginx.routes(candidate).at(-1) === home) bobToken = candidate;
    }
    assert.ok(bobToken, "a token that nginx sends to alice's replica");
    const bob = await modernClient(nginx.url, bobToken);
    clients.push(bob);

    const errors: string[] = [];
    const crossed: string[] = [];
    let reinitialized = 0;
    let killed!: () => void;
    const afterKill = new Promise<void>((resolve) => (killed = resolve));
    const arrived: Promise<void>[] = [];
    const run = async (name: string, echo: (text: string) => Promise<string>, recover?: () => Promise<void>) => {
      let arrive!: () => void;
      arrived.push(new Promise<void>((resolve) => (arrive = resolve)));
      for (let call = 0; call < CALLS; call++) {
        if (call === KILL_AT) {
          arrive();
          await afterKill;
        }
        const text = `${name}-${call}`;
        let answer: string;
        try {
          answer = await echo(text);
        } catch (error) {
          // A 2025 session the dead replica held is unknown to the other: 404, then one new session.
          if (!(recover && error instanceof StreamableHTTPError && error.code === 404)) {
            errors.push(`${name} call ${call}: ${error}`);
            continue;
          }
          reinitialized++;
          await recover();
          answer = await echo(text).catch((again) => `${again}`);
        }
        if (answer !== `replica: ${text}`) (answer.includes(name === "alice" ? "bob" : "alice") ? crossed : errors).push(`${name} call ${call}: ${answer}`);
      }
    };
    const running = Promise.all([run("alice", alice.echo, alice.fresh), run("bob", bob.echo)]);
    await Promise.all(arrived);
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (const child of descendants(victim.pid)) watched.add(child.pid);
    for (const replica of replicas) for (const child of descendants(replica.pid)) watched.add(child.pid);
    // Dead means reaped: a process whose other threads still close its sockets takes a connection and resets it.
    const reaped = new Promise((resolve) => victim.child.once("exit", resolve));
    victim.child.kill("SIGKILL");
    await Promise.race([reaped, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    assert.equal(isAlive(victim.pid), false);
    killed();
    await running;

    assert.deepEqual(errors, [], nginx.errors() + nginx.log().split("\n").filter((line) => !line.includes("|200|")).join("\n"));
    assert.deepEqual(crossed, []);
    assert.equal(reinitialized, 1, "the 2025 client started one new session");
    const survivor = replicas.find((replica) => replica !== victim)!;
    assert.equal(nginx.routes(bobToken).at(-1), replicaOf(survivor));
    assert.equal(nginx.routes(ALICE).at(-1), replicaOf(survivor));
    for (const child of descendants(survivor.pid)) watched.add(child.pid);
  } finally {
    await Promise.allSettled(clients.map((client) => client.close()));
    await Promise.allSettled(replicas.map((replica) => replica.stop()));
    await nginx.stop();
  }
  const left = await waitGone([...watched], 10_000);
  for (const pid of left) if (isAlive(pid)) process.kill(pid, "SIGKILL");
  assert.deepEqual(left, [], "no process is left");
});
