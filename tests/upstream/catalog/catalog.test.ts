/**
 * The catalog of every toolbox served as one, against two real servers (tests/fixtures/catalog-server.ts)
 * whose answers name the server that gave them: what is listed, and where each request goes.
 */
import { SessionOffer } from "../../../src/toolboxes/session-offer.ts";
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { platform } from "#platform";
import { validateConfig } from "../../../src/config/index.ts";
import { ToolboxRegistry } from "../../../src/toolboxes/registry.ts";
import { ServerPool } from "../../../src/toolboxes/pool.ts";
import { UriTable } from "../../../src/upstream/catalog/uri-table.ts";
import { RESOURCE_NOT_FOUND, WorkbenchCatalog } from "../../../src/upstream/catalog/catalog.ts";
import type { JSONRPCRequest } from "../../../src/protocol/sdk.ts";
import { fixtureServer } from "../../helpers/runtime.ts";

const host = { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {} };

/** Server a (toolbox dev) comes first in the configuration, server b (toolbox ops) second. */
const config = validateConfig({
  toolboxes: {
    dev: {
      mcpServers: {
        a: fixtureServer("catalog-server.ts", {
          env: { FIXTURE_LABEL: "a", FIXTURE_RESOURCES: "shared://doc,a://only", FIXTURE_TEMPLATES: "tmpl://{id}" },
        }),
      },
    },
    ops: {
      mcpServers: {
        b: fixtureServer("catalog-server.ts", {
          env: { FIXTURE_LABEL: "b", FIXTURE_RESOURCES: "shared://doc,b://only", FIXTURE_TEMPLATES: "tmpl://{id},btmpl://{id}" },
        }),
      },
    },
  },
});

let registry: ToolboxRegistry;
let table: UriTable;
let catalog: WorkbenchCatalog;
const [a, b] = [0, 1].map((rank) => () => registry.configured[rank]);

before(async () => {
  registry = new ToolboxRegistry(config, host);
  table = new UriTable();
  catalog = new WorkbenchCatalog(new SessionOffer(registry, () => config), table);
  // Listing starts no server: before they connect, nothing is listed.
  assert.deepEqual(await catalog.listPrompts(), { prompts: [] });
  await registry.open("dev");
  await registry.open("ops");
});

after(async () => await registry.closeAll());

let nextId = 0;
const request = (method: string, params: Record<string, unknown>) => catalog.handle({ jsonrpc: "2.0", id: ++nextId, method, params } as JSONRPCRequest);
const readText = async (uri: string) => ((await request("resources/read", { uri })) as { contents: { text: string }[] }).contents[0].text;

test("catalog: prompts are named by origin and labelled; prompts/get reaches the prompt's server under its own name", async () => {
  const { prompts } = await catalog.listPrompts();
  assert.deepEqual(prompts.map((prompt) => [prompt.name, prompt.title, prompt.description]), [
    ["dev__a__greet", "Greeting (dev/a)", "Says hello (from dev/a)"],
    ["ops__b__greet", "Greeting (ops/b)", "Says hello (from ops/b)"],
  ]);
  for (const [name, expected] of [["dev__a__greet", "a: hello Ann"], ["ops__b__greet", "b: hello Ann"]]) {
    const got = await request("prompts/get", { name, arguments: { name: "Ann" } }) as { messages: { content: { text: string } }[] };
    assert.equal(got.messages[0].content.text, expected);
  }
  await assert.rejects(request("prompts/get", { name: "greet" }), { code: -32602, message: "Prompt 'greet' not found in any toolbox" });
});

test("catalog: each URI and template is listed once, from the first server in configuration order", async () => {
  const { resources } = await catalog.listResources();
  assert.deepEqual(resources.map((resource) => [resource.uri, resource.title]), [
    ["shared://doc", "a shared://doc (dev/a)"],
    ["a://only", "a a://only (dev/a)"],
    ["b://only", "b b://only (ops/b)"],
  ]);
  const { resourceTemplates } = await catalog.listResourceTemplates();
  assert.deepEqual(resourceTemplates.map((template) => [template.uriTemplate, template.description]), [
    ["tmpl://{id}", "From dev/a"],
    ["btmpl://{id}", "From ops/b"],
  ]);
});

test("catalog: resources/read goes to the URI's owner: listed, templated, returned by a tool; an unknown URI names itself", async () => {
  assert.equal(await readText("shared://doc"), "a read shared://doc");
  assert.equal(await readText("a://only"), "a read a://only");
  assert.equal(await readText("b://only"), "b read b://only");
  assert.equal(await readText("tmpl://7"), "a read tmpl://7", "both have the template: the first owns its URIs");
  assert.equal(await readText("btmpl://7"), "b read btmpl://7");
  // A later server's tool returned a URI the first lists: it stays the first's. The reverse too.
  table.learn(b(), "a://only");
  assert.equal(await readText("a://only"), "a read a://only");
  table.learn(a(), "b://only");
  assert.equal(await readText("b://only"), "a read b://only");
  table.learn(b(), "learned://x");
  assert.equal(await readText("learned://x"), "b read learned://x");
  await assert.rejects(request("resources/read", { uri: "nowhere://x" }), {
    code: RESOURCE_NOT_FOUND,
    message: "Resource 'nowhere://x' not found: no server lists it, has a template that matches it or returned it from a tool",
  });
  await assert.rejects(request("resources/read", {}), { code: -32602 });
});

test("catalog: resources/subscribe reaches the owner, which then keeps the subscription; unsubscribe undoes it", async () => {
  const subscribedOn = async (toolbox: string) => {
    const slot = registry.get(toolbox)!.servers[0];
    const result = await slot.on(slot.serverSession!).call("subscribed", {}, {});
    return JSON.parse((result.content[0] as { text: string }).text);
  };
  await request("resources/subscribe", { uri: "btmpl://1" });
  await request("resources/subscribe", { uri: "tmpl://1" });
  assert.deepEqual(await subscribedOn("ops"), ["btmpl://1"]);
  assert.deepEqual(await subscribedOn("dev"), ["tmpl://1"]);
  assert.deepEqual([...registry.slot(b()).shared.subscriptions.keys()], ["btmpl://1"]);
  assert.deepEqual([...registry.slot(a()).shared.subscriptions.keys()], ["tmpl://1"]);
  await request("resources/unsubscribe", { uri: "btmpl://1" });
  assert.deepEqual(await subscribedOn("ops"), []);
  assert.deepEqual([...registry.slot(b()).shared.subscriptions.keys()], []);
  await request("resources/unsubscribe", { uri: "tmpl://1" });
});

test("catalog: two sessions on one server each keep their subscription; the server is told of the unsubscribe when the last leaves", async () => {
  const pool = new ServerPool(config, host);
  const sessions = [new ToolboxRegistry(config, pool), new ToolboxRegistry(config, pool)];
  try {
    const catalogs = sessions.map((session) => new WorkbenchCatalog(new SessionOffer(session, () => config), new UriTable()));
    await sessions[0].open("ops");
    const slot = sessions[0].get("ops")!.servers[0];
    const subscribedOn = async () => JSON.parse(((await slot.on(slot.serverSession!).call("subscribed", {}, {})).content[0] as { text: string }).text);
    const ask = (catalog: WorkbenchCatalog, method: string) => catalog.handle({ jsonrpc: "2.0", id: ++nextId, method, params: { uri: "btmpl://2" } } as JSONRPCRequest);
    for (const catalog of catalogs) await catalog.listResourceTemplates();
    for (const catalog of catalogs) await ask(catalog, "resources/subscribe");
    assert.deepEqual(await subscribedOn(), ["btmpl://2"]);
    await ask(catalogs[0], "resources/unsubscribe");
    assert.deepEqual([sessions[0].subscriptions.has("btmpl://2"), sessions[1].subscriptions.has("btmpl://2")], [false, true]);
    assert.deepEqual(await subscribedOn(), ["btmpl://2"], "the other session still listens");
    await ask(catalogs[1], "resources/unsubscribe");
    assert.deepEqual(await subscribedOn(), []);
  } finally {
    for (const session of sessions) await session.closeAll();
    await pool.closeAll();
  }
});

test("catalog: a session that closes while subscribed leaves the server's subscription to the sessions still there, and tells the server when it was the last", async () => {
  const pool = new ServerPool(config, host);
  const sessions = [new ToolboxRegistry(config, pool), new ToolboxRegistry(config, pool), new ToolboxRegistry(config, pool)];
  try {
    const catalogs = sessions.map((session) => new WorkbenchCatalog(new SessionOffer(session, () => config), new UriTable()));
    await sessions[2].open("ops");
    const slot = sessions[2].get("ops")!.servers[0];
    const subscribedOn = async () => JSON.parse(((await slot.on(slot.serverSession!).call("subscribed", {}, {})).content[0] as { text: string }).text);
    const ask = (catalog: WorkbenchCatalog, method: string) => catalog.handle({ jsonrpc: "2.0", id: ++nextId, method, params: { uri: "btmpl://3" } } as JSONRPCRequest);
    for (const catalog of catalogs) await catalog.listResourceTemplates();
    await ask(catalogs[0], "resources/subscribe");
    await ask(catalogs[1], "resources/subscribe");
    await sessions[0].closeAll();
    assert.deepEqual(await subscribedOn(), ["btmpl://3"], "session 1 still listens");
    assert.deepEqual([...slot.shared.subscriptions.get("btmpl://3") ?? []], [sessions[1]]);
    await sessions[1].closeAll();
    // Not waited for by the closing session: the server hears it at once all the same.
    for (let turn = 0; turn < 100 && (await subscribedOn()).length > 0; turn++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(await subscribedOn(), [], "the last subscriber left without unsubscribing: the server is told");
    assert.equal(slot.shared.subscriptions.size, 0, "the idle clock may run again");
  } finally {
    for (const session of sessions) await session.closeAll();
    await pool.closeAll();
  }
});

test("catalog: completion/complete goes to the prompt's or the template's server", async () => {
  const values = async (ref: Record<string, string>) =>
    ((await request("completion/complete", { ref, argument: { name: "x", value: "v" } })) as { completion: { values: string[] } }).completion.values;
  assert.deepEqual(await values({ type: "ref/prompt", name: "ops__b__greet" }), ["b:v"]);
  assert.deepEqual(await values({ type: "ref/prompt", name: "dev__a__greet" }), ["a:v"]);
  assert.deepEqual(await values({ type: "ref/resource", uri: "btmpl://{id}" }), ["b:v"]);
  assert.deepEqual(await values({ type: "ref/resource", uri: "tmpl://{id}" }), ["a:v"]);
  await assert.rejects(values({ type: "ref/resource", uri: "none://{id}" }), { code: -32602, message: "Resource template 'none://{id}' not found in any toolbox" });
});

test("catalog: a method it does not serve is not found", async () => {
  await assert.rejects(request("tools/list", {}), { code: -32601 });
});
