/**
 * Grants through openSession: a session opened for a client granted toolbox "dev" sees "ops"
 * nowhere (instructions, open_toolbox's description and answer, use_tool, prompts, resources,
 * completions), though another session of the same process has ops's server running. A hidden
 * toolbox gets exactly the answer of one that is not configured.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { platform } from "#platform";
import { validateConfig, type WorkbenchConfig } from "../../../src/config/index.ts";
import { ServerPool } from "../../../src/toolboxes/pool.ts";
import { openSession, type UpstreamSession } from "../../../src/upstream/session.ts";
import { type ClientIdentity, LOCAL_USER } from "../../../src/upstream/client-identity.ts";
import { StreamTransport } from "../../../src/transport/stream-transport.ts";
import { type CallToolResult, Client } from "../../helpers/sdk.ts";
import { fixtureServer } from "../../helpers/runtime.ts";

const catalogServer = (label: string, resources: string) =>
  fixtureServer("catalog-server.ts", { env: { FIXTURE_LABEL: label, FIXTURE_RESOURCES: resources } });
const config = validateConfig({
  toolboxes: {
    dev: { description: "Code", mcpServers: { a: catalogServer("a", "a://only") } },
    ops: { description: "Deploys", mcpServers: { b: catalogServer("b", "b://only") } },
  },
});
/** The same file without ops: what a client sees of a toolbox that does not exist. */
const devOnly: WorkbenchConfig = { toolboxes: { dev: config.toolboxes.dev } };
const host = { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {} };
const TIMEOUT = { timeout: 20_000 };
const ALICE: ClientIdentity = { name: "alice", toolboxes: ["dev"] };

interface Peer {
  client: Client;
  session: UpstreamSession;
}

const pool = new ServerPool(config, host);
const peers: Peer[] = [];

async function connect(client: ClientIdentity, sessionConfig: WorkbenchConfig = config): Promise<Peer> {
  const up = new TransformStream<Uint8Array, Uint8Array>();
  const down = new TransformStream<Uint8Array, Uint8Array>();
  const session = await openSession(new StreamTransport(up.readable, down.writable), {
    config: sessionConfig,
    configPath: "grants.json",
    pool,
    client,
    onClose: () => {},
    onError: () => {},
  });
  const sdk = new Client({ name: client.name, version: "1" }, { capabilities: {} });
  await sdk.connect(new StreamTransport(down.readable, up.writable));
  const peer = { client: sdk, session };
  peers.push(peer);
  return peer;
}

const textOf = (result: unknown) => (result as CallToolResult).content.map((item) => item.type === "text" ? item.text : "").join("");
const open = (peer: Peer, toolbox: string) => peer.client.callTool({ name: "open_toolbox", arguments: { toolbox_name: toolbox } }, undefined, TIMEOUT);
const use = (peer: Peer, toolbox: string, server: string, name: string) =>
  peer.client.callTool({ name: "use_tool", arguments: { tool: { toolbox, server, name }, arguments: { uri: "x://y" } } }, undefined, TIMEOUT);

let everyone: Peer;
let alice: Peer;
let nobodyElse: Peer;

before(async () => {
  // A session for every toolbox starts both servers: ops's listing is known to the process.
  everyone = await connect(LOCAL_USER);
  await open(everyone, "dev");
  await open(everyone, "ops");
  alice = await connect(ALICE);
  nobodyElse = await connect(LOCAL_USER, devOnly);
});

after(async () => {
  for (const peer of peers) {
    await peer.client.close();
    await peer.session.close();
  }
  await pool.closeAll();
});

test("grants: the instructions and open_toolbox's description name only the granted toolboxes", async () => {
  const instructions = alice.client.getInstructions() ?? "";
  assert.match(instructions, /^- dev: Code \(1 server\)$/m);
  assert.doesNotMatch(instructions, /ops|Deploys/);
  assert.equal(instructions, nobodyElse.client.getInstructions());
  const { tools } = await alice.client.listTools();
  const description = tools.find((tool) => tool.name === "open_toolbox")?.description ?? "";
  assert.ok(description.endsWith("Toolboxes: dev (Code)."), description);
  assert.ok((everyone.client.getInstructions() ?? "").includes("- ops: Deploys"), "the other session sees ops");
});

test("grants: a toolbox not granted answers exactly as one that does not exist, in open_toolbox and use_tool", async () => {
  const hidden = await open(alice, "ops");
  assert.equal(hidden.isError, true);
  assert.deepEqual(hidden, await open(nobodyElse, "ops"));
  assert.equal(textOf(hidden), "Toolbox 'ops' not found in configuration; available toolboxes: 'dev'");
  assert.deepEqual(await open(alice, "opz"), await open(nobodyElse, "opz"));

  const call = await use(alice, "ops", "b", "link");
  assert.equal(call.isError, true);
  assert.deepEqual(call, await use(nobodyElse, "ops", "b", "link"));
  assert.match(textOf(call), /^Error executing tool: Toolbox 'ops' not found in configuration/);
  // The granted toolbox works as usual.
  await open(alice, "dev");
  const linked = await use(alice, "dev", "a", "link") as CallToolResult;
  assert.notEqual(linked.isError, true);
  assert.deepEqual(linked.content.map((item) => item.type === "resource_link" ? item.uri : item.type), ["x://y"]);
});

test("grants: prompts, resources and completions of other toolboxes are invisible and unreachable", async () => {
  const prompts = (await alice.client.listPrompts()).prompts.map((prompt) => prompt.name);
  assert.deepEqual(prompts, ["dev__a__greet"]);
  assert.deepEqual((await everyone.client.listPrompts()).prompts.map((prompt) => prompt.name), ["dev__a__greet", "ops__b__greet"]);
  const resources = (await alice.client.listResources()).resources.map((resource) => resource.uri);
  assert.deepEqual(resources, ["a://only"]);

  await assert.rejects(alice.client.getPrompt({ name: "ops__b__greet", arguments: { name: "Ann" } }), /Prompt 'ops__b__greet' not found in any toolbox/);
  const read = await alice.client.readResource({ uri: "b://only" }).then((result) => JSON.stringify(result), (error: Error) => error.message);
  assert.equal(read, "MCP error -32002: Resource 'b://only' not found: no server lists it, has a template that matches it or returned it from a tool");
  const completion = await alice.client.complete({ ref: { type: "ref/prompt", name: "ops__b__greet" }, argument: { name: "name", value: "A" } })
    .then((result) => JSON.stringify(result), (error: Error) => error.message);
  assert.equal(completion, "MCP error -32602: Prompt 'ops__b__greet' not found in any toolbox");
  // The same requests of the session for every toolbox reach ops's server.
  assert.deepEqual((await everyone.client.readResource({ uri: "b://only" })).contents.map((item) => "text" in item ? item.text : ""), ["b read b://only"]);
});
