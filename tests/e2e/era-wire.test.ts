/**
 * The 2026-07-28 connection in raw lines, for what the matrix's clients take for granted: what
 * server/discover says, the answer to a version we do not speak, the cache fields, the instructions
 * in both eras, and subscriptions/listen.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { INITIALIZE, INITIALIZED, startRaw } from "../helpers/raw-session.ts";
import { fixture, npmServer, runScript } from "../helpers/runtime.ts";
import { removeTempDirs } from "../helpers/workbench.ts";
import { fx } from "../helpers/toolbox.ts";

after(removeTempDirs);

const envelope = (version = "2026-07-28") => ({
  "io.modelcontextprotocol/protocolVersion": version,
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} }, sampling: {} },
});
const request = (id: number, method: string, params: Record<string, unknown> = {}, version?: string) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: envelope(version) } }) + "\n";

const CONFIG = {
  toolboxes: {
    files: { description: "Prompts and resources", mcpServers: { everything: npmServer("everything") } },
    plain: { description: "Plain tools", mcpServers: { one: fx("one") } },
    asking: { description: "A 2025 server that asks", mcpServers: { old: fx("old", {}, { FIXTURE_CLIENT_FEATURES: "1" }) } },
    modern: { description: "A 2026-07-28 server", mcpServers: { v2: runScript(fixture("v2-server.ts"), ["--era", "2026"]) } },
  },
};

test("era wire: server/discover, the version error, cache fields and the instructions of both eras", async () => {
  const session = await startRaw(CONFIG, { initialize: false });
  try {
    await session.write(request(1, "server/discover"));
    const discovered = (await session.answer(1)).result;
    assert.equal(discovered.resultType, "complete");
    assert.deepEqual(discovered.supportedVersions, ["2026-07-28"]);
    assert.deepEqual(Object.keys(discovered.capabilities).sort(), ["completions", "logging", "prompts", "resources", "tools"]);
    assert.deepEqual(discovered.capabilities.resources, { listChanged: true }, "no resources/subscribe in 2026-07-28: listen instead");
    assert.match(discovered.instructions, /- files: Prompts and resources/);
    assert.equal(discovered.ttlMs, 0);
    assert.equal(discovered.cacheScope, "private");
    assert.equal(discovered._meta["io.modelcontextprotocol/serverInfo"].name, "mcp-workbench");

    await session.write(request(2, "tools/list", {}, "2027-01-01"));
    const refused = await session.answer(2);
    assert.equal(refused.error.code, -32022);
    assert.equal(refused.error.message, 'Unsupported protocol version: "2027-01-01"');
    assert.deepEqual(refused.error.data, { supported: ["2026-07-28"], requested: "2027-01-01" });

    // Our requestState for a call that is over is refused: sent on, the tool would run again.
    await session.write(request(30, "tools/call", {
      name: "use_tool",
      arguments: { tool: { toolbox: "plain", server: "one", name: "echo" }, arguments: { text: "again" } },
      inputResponses: {},
      requestState: "mcp-workbench/parked/00000000-0000-0000-0000-000000000000",
    }));
    const expired = await session.answer(30);
    assert.equal(expired.error.code, -32602);
    assert.match(expired.error.message, /requestState is unknown or expired/);

    await session.write(request(3, "tools/list"));
    const listed = (await session.answer(3)).result;
    assert.deepEqual([listed.resultType, listed.ttlMs, listed.cacheScope], ["complete", 0, "private"]);
    assert.deepEqual(listed.tools.map((tool: { name: string }) => tool.name), ["open_toolbox", "use_tool"]);

    await session.write(request(4, "tools/call", { name: "open_toolbox", arguments: { toolbox_name: "plain" } }));
    const opened = (await session.answer(4)).result;
    assert.equal(opened.resultType, "complete");
    assert.equal(JSON.parse(opened.content[0].text).servers_connected, 1);
  } finally {
    await session.close();
  }

  // The same instructions reach a 2025 client in its initialize result.
  const legacy = await startRaw(CONFIG, { initialize: false });
  try {
    await legacy.write(`${INITIALIZE}\n${INITIALIZED}\n`);
    const initialized = (await legacy.answer(1)).result;
    assert.match(initialized.instructions, /- files: Prompts and resources/);
    assert.equal(initialized.resultType, undefined, "a 2025 connection is as it was");
  } finally {
    await legacy.close();
  }
});

test("era wire: subscriptions/listen hears the prompts and resources lists change when a toolbox opens", async () => {
  const session = await startRaw(CONFIG, { initialize: false });
  try {
    await session.write(request(1, "subscriptions/listen", { notifications: { promptsListChanged: true, resourcesListChanged: true } }));
    const ack = await session.reply((reply) => reply.method === "notifications/subscriptions/acknowledged");
    assert.equal(ack.params._meta["io.modelcontextprotocol/subscriptionId"], 1);
    assert.deepEqual(ack.params.notifications, {
      toolsListChanged: false,
      promptsListChanged: true,
      resourcesListChanged: true,
      resourceSubscriptions: [],
    });
    await session.write(request(2, "tools/call", { name: "open_toolbox", arguments: { toolbox_name: "files" } }));
    await session.answer(2, 60_000);
    for (const method of ["notifications/prompts/list_changed", "notifications/resources/list_changed"]) {
      const changed = await session.reply((reply) => reply.method === method);
      assert.equal(changed.params._meta["io.modelcontextprotocol/subscriptionId"], 1);
    }
    // A cancelled listen ends: it is never answered, and hears no more.
    await session.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }) + "\n");
    await session.write(request(3, "tools/list"));
    await session.answer(3);
    assert.equal(session.replies.filter((reply) => reply.id === 1).length, 0);
  } finally {
    await session.close();
  }
});

test("era wire: a 2026 server's input_required reaches a 2026 client as it is, and the retry goes back to it", async () => {
  const session = await startRaw(CONFIG, { initialize: false });
  const confirm = (id: number, extra: Record<string, unknown> = {}) =>
    request(id, "tools/call", { name: "use_tool", arguments: { tool: { toolbox: "modern", server: "v2", name: "confirm" }, arguments: { what: "deploy" } }, ...extra });
  try {
    await session.write(request(1, "tools/call", { name: "open_toolbox", arguments: { toolbox_name: "modern" } }));
    await session.answer(1, 60_000);
    await session.write(confirm(2));
    const asked = (await session.answer(2)).result;
    assert.equal(asked.resultType, "input_required", JSON.stringify(asked));
    // The server's own key, request and state: nothing renamed, nothing re-encoded.
    assert.deepEqual(Object.keys(asked.inputRequests), ["who"]);
    assert.equal(asked.inputRequests.who.method, "elicitation/create");
    assert.equal(asked.inputRequests.who.params.message, "Who confirms deploy?");
    assert.equal(asked.requestState, "v2-fixture-state:é/+= 1");
    await session.write(confirm(3, { inputResponses: { who: { action: "accept", content: { name: "Ada" } } }, requestState: asked.requestState }));
    const done = (await session.answer(3)).result;
    assert.equal(done.resultType, "complete");
    assert.equal(done.content[0].text, "deploy confirmed by Ada");
  } finally {
    await session.close();
  }
});

test("era wire: a 2025 server's sampling and elicitation during a call reach a 2026 client as input_required, answered by its retry", async () => {
  const session = await startRaw(CONFIG, { initialize: false });
  const call = (id: number, name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    request(id, "tools/call", { name: "use_tool", arguments: { tool: { toolbox: "asking", server: "old", name }, arguments: args }, ...extra });
  try {
    await session.write(request(1, "tools/call", { name: "open_toolbox", arguments: { toolbox_name: "asking" } }));
    await session.answer(1, 60_000);
    await session.write(call(2, "ask", {}));
    const asked = (await session.answer(2)).result;
    assert.equal(asked.resultType, "input_required", JSON.stringify(asked));
    const [[key, question]] = Object.entries(asked.inputRequests) as [string, { method: string; params: Record<string, unknown> }][];
    assert.equal(question.method, "sampling/createMessage");
    assert.deepEqual(question.params, { messages: [], maxTokens: 1 }, "the server's request as it sent it");
    const sampled = { role: "assistant", content: { type: "text", text: "ok" }, model: "test-model" };
    await session.write(call(3, "ask", {}, { inputResponses: { [key]: sampled }, requestState: asked.requestState }));
    assert.equal((await session.answer(3)).result.content[0].text, "the client sampled");
    assert.equal(session.replies.filter((reply) => reply.id === 2).length, 1, "the first request was answered once");

    // Form elicitation the same way; the call's result answers the retry, not the first request.
    await session.write(call(4, "confirm", { what: "deploy" }));
    const confirm = (await session.answer(4)).result;
    const [elicitKey] = Object.keys(confirm.inputRequests);
    assert.equal(confirm.inputRequests[elicitKey].params.message, "Who confirms deploy?");
    await session.write(call(5, "confirm", { what: "deploy" }, {
      inputResponses: { [elicitKey]: { action: "accept", content: { name: "Ada" } } },
      requestState: confirm.requestState,
    }));
    const done = (await session.answer(5)).result;
    assert.deepEqual([done.resultType, done.content[0].text], ["complete", "deploy confirmed by Ada"]);
  } finally {
    await session.close();
  }
});
