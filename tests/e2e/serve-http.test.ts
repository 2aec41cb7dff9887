/**
 * `serve --http` end to end, from source or the built executable (WORKBENCH_BIN): the stderr line
 * and port 0; a 2025-11-25 client (SDK 1.32, StreamableHTTPClientTransport) opening a toolbox and
 * calling a tool, with progress; two sessions at once each answering its own elicitation; DELETE
 * and an unknown session (404); a 2026-07-28 client (SDK v2) with an input_required round and a
 * toolbox it never opened; SIGTERM with a call in flight (it finishes, exit 0, no process left).
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { Client, ElicitRequestSchema } from "../helpers/sdk.ts";
import { connectLegacy, connectModern, startHttpWorkbench } from "../helpers/http-workbench.ts";
import { firstProgress, fx, spawnLog } from "../helpers/toolbox.ts";
import { removeTempDirs } from "../helpers/workbench.ts";
import { waitGone } from "../helpers/procs.ts";

after(removeTempDirs);

const ECHO = (text: string) => ({ tool: { toolbox: "dev", server: "a", name: "echo" }, arguments: { text } });
const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0].text;
const config = (env: Record<string, string> = {}) => ({
  toolboxes: { dev: { description: "Dev tools", mcpServers: { a: fx("a", {}, { FIXTURE_CLIENT_FEATURES: "1", ...env }) } } },
});

test("serve --http: the URL on stderr, a 2025 client opens a toolbox and calls a tool with progress", async () => {
  const wb = await startHttpWorkbench(config());
  try {
    assert.match(wb.url, /^http:\/\/127\.0\.0\.1:[1-9]\d*\/mcp$/, wb.stderr());
    const { client } = await connectLegacy(wb.url);
    assert.ok(client.getInstructions()?.includes("dev"));
    const opened = JSON.parse(textOf(await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } })));
    assert.equal(opened.toolbox, "dev");
    assert.equal(textOf(await client.callTool({ name: "use_tool", arguments: ECHO("hi") })), "a: hi");
    const steps: number[] = [];
    const progress = { tool: { toolbox: "dev", server: "a", name: "progress" }, arguments: { steps: 3, ms: 10 } };
    await client.callTool({ name: "use_tool", arguments: progress }, undefined, { onprogress: (p) => steps.push(p.progress), timeout: 20_000 });
    assert.deepEqual(steps, [1, 2, 3]);
    await client.close();
  } finally {
    assert.equal(await wb.stop(), 0, wb.stderr());
  }
});

test("serve --http: two 2025 sessions at once, each answers its own elicitation", async () => {
  // Two definitions: a 2025 stdio server shared by two sessions with calls in flight cannot say
  // whose call asks (README, "Which servers should not be shared among clients").
  const features = { FIXTURE_CLIENT_FEATURES: "1" };
  const wb = await startHttpWorkbench({ toolboxes: { dev: { description: "Dev tools", mcpServers: { a: fx("a", {}, features), b: fx("b", {}, features) } } } });
  try {
    const connect = async (name: string) => {
      const client = new Client({ name, version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
      client.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content: { name } }));
      return (await connectLegacy(wb.url, client)).client;
    };
    const [alice, bob] = await Promise.all([connect("alice"), connect("bob")]);
    const confirm = (client: Client, server: string, what: string) =>
      client.callTool({ name: "use_tool", arguments: { tool: { toolbox: "dev", server, name: "confirm" }, arguments: { what, delayMs: 200 } } }, undefined, { timeout: 20_000 });
    for (const client of [alice, bob]) await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } });
    const [a, b] = await Promise.all([confirm(alice, "a", "deploy"), confirm(bob, "b", "rollback")]);
    assert.equal(textOf(a), "deploy confirmed by alice");
    assert.equal(textOf(b), "rollback confirmed by bob");
    await Promise.all([alice.close(), bob.close()]);
  } finally {
    assert.equal(await wb.stop(), 0, wb.stderr());
  }
});

test("serve --http: DELETE ends a session (404 after), an unknown session gets 404", async () => {
  const wb = await startHttpWorkbench(config());
  try {
    const { client, transport } = await connectLegacy(wb.url);
    const id = transport.sessionId!;
    assert.ok(id);
    await transport.terminateSession();
    const ping = (session: string) =>
      fetch(wb.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
    for (const session of [id, "no-such-session"]) {
      const response = await ping(session);
      assert.equal(response.status, 404);
      assert.equal((await response.json()).error.message, "Session not found");
    }
    await client.close();
  } finally {
    assert.equal(await wb.stop(), 0, wb.stderr());
  }
});

test("serve --http: a 2026-07-28 client calls without opening the toolbox, and answers an input_required round", async () => {
  const wb = await startHttpWorkbench(config());
  try {
    const client = await connectModern(wb.url, { elicitation: { form: {} } });
    let asked = 0;
    client.setRequestHandler("elicitation/create", () => (asked++, { action: "accept" as const, content: { name: "carol" } }));
    assert.equal(client.getProtocolEra(), "modern");
    // No open_toolbox first: each request stands alone, so use_tool opens the toolbox itself.
    assert.equal(textOf(await client.callTool({ name: "use_tool", arguments: ECHO("hi") })), "a: hi");
    const confirm = { tool: { toolbox: "dev", server: "a", name: "confirm" }, arguments: { what: "merge" } };
    assert.equal(textOf(await client.callTool({ name: "use_tool", arguments: confirm })), "merge confirmed by carol");
    assert.equal(asked, 1);
    await client.close();
  } finally {
    assert.equal(await wb.stop(), 0, wb.stderr());
  }
});

test("serve --http: SIGTERM lets a call in flight finish, stops every server, exits 0", async () => {
  const spawns = spawnLog();
  const wb = await startHttpWorkbench(config(spawns.env));
  const { client } = await connectLegacy(wb.url);
  await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } });
  const sleep = { tool: { toolbox: "dev", server: "a", name: "sleep" }, arguments: { ms: 1_500 } };
  const sleeping = firstProgress("the sleep");
  const call = client.callTool({ name: "use_tool", arguments: sleep }, undefined, { timeout: 20_000, onprogress: sleeping.onprogress });
  // Stopped once the call is on the server: in flight, not still on its way.
  await sleeping.begun();
  const code = wb.stop("SIGTERM");
  const result = await call;
  assert.equal(result.isError, undefined, JSON.stringify(result));
  assert.equal(await code, 0, wb.stderr());
  assert.match(wb.stderr(), /stopping \(SIGTERM\): calls in flight have 5 s to finish/);
  const pids = spawns.spawned().map((line) => Number(line.split(" ")[1]));
  assert.equal(pids.length, 1);
  assert.deepEqual(await waitGone(pids, 10_000), []);
  await client.close();
});
