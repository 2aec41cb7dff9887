/** The 2026-07-28 translation on its own: messages in, messages out, against a recording peer. */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JSONRPCMessage, RequestId } from "../../../src/protocol/sdk.ts";
import { MAX_INPUT_ROUNDS, ModernSession } from "../../../src/downstream/era/modern-link.ts";
import { CLIENT_CAPABILITIES_KEY, LOG_LEVEL_KEY, PASS_INPUT_REQUIRED_KEY, PROTOCOL_VERSION_KEY } from "../../../src/protocol/wire.ts";

type Message = Record<string, any>;

const DISCOVERED = {
  supportedVersions: ["2026-07-28"],
  capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } },
  instructions: "Use it well",
  resultType: "complete",
  _meta: { "io.modelcontextprotocol/serverInfo": { name: "v2-fixture", version: "2.4.0" } },
};
const STATE = "v2-fixture-state:é/+= 1";
const ELICIT = { method: "elicitation/create", params: { message: "Who?", requestedSchema: { type: "object" } } };

function session(options: { abort?: (id: RequestId) => boolean } = {}) {
  const server: Message[] = [];
  const client: Message[] = [];
  const modern = new ModernSession(DISCOVERED, {
    toServer: (message) => (server.push(message), Promise.resolve()),
    toClient: (message) => void client.push(message),
    abort: options.abort,
  }, { name: "mcp-workbench", version: "9.9.9" });
  const send = (message: Message) => modern.outgoing(message as JSONRPCMessage);
  /** The server answers; what the session does not keep goes to the client as it is. */
  const answer = (message: Message) => {
    if (!modern.incoming({ jsonrpc: "2.0", ...message } as JSONRPCMessage)) client.push({ passed: true, ...message });
  };
  const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
  return { modern, server, client, send, answer, tick };
}

const inputRequired = (requests: Record<string, unknown> = { who: ELICIT }) => ({ resultType: "input_required", inputRequests: requests, requestState: STATE });

test("initialize, ping and logging/setLevel are answered here; setLevel rides on later requests", async () => {
  const { server, client, send, tick } = session();
  await send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: { elicitation: { form: {} }, tasks: {} }, clientInfo: { name: "c", version: "1" } } });
  await send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await send({ jsonrpc: "2.0", id: 1, method: "ping" });
  await send({ jsonrpc: "2.0", id: 2, method: "logging/setLevel", params: { level: "warning" } });
  await send({ jsonrpc: "2.0", id: 3, method: "resources/subscribe", params: { uri: "file:///a" } });
  await tick();
  assert.deepEqual(client[0].result, {
    protocolVersion: "2025-11-25",
    capabilities: { tools: { listChanged: true }, resources: { listChanged: true } },
    serverInfo: { name: "v2-fixture", version: "2.4.0" },
    instructions: "Use it well",
  });
  assert.deepEqual(client.slice(1, 3).map((message) => message.result), [{}, {}]);
  assert.equal(client[3].error.code, -32601);
  assert.match(client[3].error.message, /^Resource subscriptions do not exist in MCP 2026-07-28: 'resources\/subscribe' not sent$/);
  assert.equal(server.length, 0, "nothing of the 2025 handshake reaches the server");

  await send({ jsonrpc: "2.0", id: "wb-1", method: "tools/call", params: { name: "echo", arguments: {}, _meta: { progressToken: "wb-1" } } });
  const meta = server[0].params._meta;
  assert.equal(meta.progressToken, "wb-1");
  assert.equal(meta[PROTOCOL_VERSION_KEY], "2026-07-28");
  assert.deepEqual(meta["io.modelcontextprotocol/clientInfo"], { name: "mcp-workbench", version: "9.9.9" });
  assert.deepEqual(meta[CLIENT_CAPABILITIES_KEY], { elicitation: { form: {} } }, "2025-only keys (tasks) are left out");
  assert.equal(meta[LOG_LEVEL_KEY], "warning");
});

test("input_required becomes requests to the client; the answers go back with the requestState byte for byte", async () => {
  const { server, client, send, answer } = session();
  await send({ jsonrpc: "2.0", id: "wb-1", method: "tools/call", params: { name: "confirm", arguments: { what: "x" } } });
  answer({ id: "wb-1", result: inputRequired({ who: ELICIT, roots: { method: "roots/list" } }) });
  assert.deepEqual(client.map((message) => message.method), ["elicitation/create", "roots/list"]);
  const [asked, rooted] = client;
  assert.deepEqual(asked.params, ELICIT.params);
  assert.notEqual(asked.id, rooted.id);
  assert.ok(![0, 1, "wb-1"].includes(asked.id));
  await send({ jsonrpc: "2.0", id: asked.id, result: { action: "accept", content: { name: "Ada" } } });
  assert.equal(server.length, 1, "not sent again before every input is answered");
  await send({ jsonrpc: "2.0", id: rooted.id, result: { roots: [] } });
  assert.equal(server.length, 2);
  const retry = server[1];
  assert.equal(retry.method, "tools/call");
  assert.equal(retry.params.requestState, STATE);
  assert.deepEqual(retry.params.inputResponses, { who: { action: "accept", content: { name: "Ada" } }, roots: { roots: [] } });
  assert.deepEqual(retry.params.arguments, { what: "x" });
  assert.equal(retry.params._meta[PROTOCOL_VERSION_KEY], "2026-07-28");
  answer({ id: retry.id, result: { content: [{ type: "text", text: "x confirmed by Ada" }], resultType: "complete" } });
  assert.deepEqual(client.at(-1), { jsonrpc: "2.0", id: "wb-1", result: { content: [{ type: "text", text: "x confirmed by Ada" }], resultType: "complete" } });
});

test("a request marked workbench/passInputRequired gets input_required back as it is", async () => {
  const { server, client, send, answer } = session();
  await send({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "confirm", _meta: { [PASS_INPUT_REQUIRED_KEY]: true, progressToken: 7 } } });
  assert.equal(PASS_INPUT_REQUIRED_KEY in server[0].params._meta, false, "our own key is not sent");
  assert.equal(server[0].params._meta.progressToken, 7);
  answer({ id: 7, result: inputRequired() });
  assert.deepEqual(client, [{ passed: true, id: 7, result: inputRequired() }]);
});

test(`a server that asks for input more than ${MAX_INPUT_ROUNDS} times fails the call`, async () => {
  const { server, client, send, answer } = session();
  await send({ jsonrpc: "2.0", id: "wb-1", method: "tools/call", params: { name: "confirm" } });
  for (let round = 0; round <= MAX_INPUT_ROUNDS; round++) {
    answer({ id: server.at(-1)!.id, result: inputRequired() });
    const asked = client.at(-1)!;
    if (asked.method) await send({ jsonrpc: "2.0", id: asked.id, result: { action: "decline" } });
  }
  const last = client.at(-1)!;
  assert.equal(last.id, "wb-1");
  assert.match(last.error.message, /^Server asked for input more than 8 times for one request: given up$/);
  assert.equal(server.length, MAX_INPUT_ROUNDS + 1);
});

test("an error answer from the client fails the call with what it said", async () => {
  const { server, client, send, answer } = session();
  await send({ jsonrpc: "2.0", id: 4, method: "prompts/get", params: { name: "p" } });
  answer({ id: 4, result: inputRequired() });
  await send({ jsonrpc: "2.0", id: client[0].id, error: { code: -32601, message: "Method not found" } });
  assert.deepEqual(client[1], {
    jsonrpc: "2.0",
    id: 4,
    error: { code: -32601, message: "The client did not answer the server's elicitation/create ('who'): Method not found" },
  });
  assert.equal(server.length, 1, "not sent again");
});

test("cancelling stops the loop: the client's pending input is cancelled, the server's copy too", async () => {
  const { server, client, send, answer } = session();
  await send({ jsonrpc: "2.0", id: "wb-1", method: "tools/call", params: { name: "confirm" } });
  answer({ id: "wb-1", result: inputRequired() });
  await send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "wb-1", reason: "stop" } });
  assert.deepEqual(client[1], { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: client[0].id, reason: "the request was given up" } });
  await send({ jsonrpc: "2.0", id: client[0].id, result: { action: "accept", content: {} } });
  assert.equal(server.length, 1, "waiting on the client, the server holds nothing to cancel; nothing is sent again");

  // In flight after a round: the cancellation names the copy the server has.
  await send({ jsonrpc: "2.0", id: "wb-2", method: "tools/call", params: { name: "confirm" } });
  answer({ id: "wb-2", result: inputRequired() });
  await send({ jsonrpc: "2.0", id: client.at(-1)!.id, result: { action: "accept", content: {} } });
  const retryId = server.at(-1)!.id;
  await send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "wb-2", reason: "stop" } });
  assert.equal(server.at(-1)!.method, "notifications/cancelled");
  assert.equal(server.at(-1)!.params.requestId, retryId);
  assert.equal(server.at(-1)!.params.reason, "stop");
});

test("a link that cancels by ending the request's exchange (HTTP) does that instead", async () => {
  const aborted: RequestId[] = [];
  const { server, send } = session({ abort: (id) => (aborted.push(id), true) });
  await send({ jsonrpc: "2.0", id: "wb-1", method: "tools/call", params: { name: "wait" } });
  await send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "wb-1" } });
  assert.deepEqual(aborted, ["wb-1"]);
  assert.equal(server.length, 1);
});
