/**
 * What a 2026-07-28 client can make us hold (issue 33): the caps and checks of the envelope, the
 * listens and the parked calls, each refused with a message that says what was wrong.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ParkedCalls } from "../../../src/upstream/era/parked-calls.ts";
import { ListenSubscriptions } from "../../../src/upstream/era/listen.ts";
import { clipped, envelopeRefusal, MAX_HELD_RESULTS, MAX_LISTENS, MAX_URIS_PER_LISTEN } from "../../../src/upstream/era/bounds.ts";
import type { JSONRPCMessage } from "../../../src/protocol/sdk.ts";

// deno-lint-ignore no-explicit-any
type Sent = any;
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
const MB = 1_000_000;
const echo = { toolbox: "plain", server: "one", name: "echo" };
const call = (id: number, params: Record<string, unknown>) => ({ jsonrpc: "2.0", id, method: "tools/call", params }) as JSONRPCMessage;
const useTool = (tool = echo) => ({ name: "use_tool", arguments: { tool, arguments: {} } });

test("bounds: a 10 MB version is echoed cut; 10 MB clientCapabilities and a 10 MB requestState are refused", () => {
  const echoed = clipped("9".repeat(10 * MB));
  assert.equal(echoed.length, 64);
  assert.equal(clipped("2027-01-01"), "2027-01-01");
  const capabilities = envelopeRefusal({ _meta: { "io.modelcontextprotocol/clientCapabilities": { x: "y".repeat(10 * MB) } } });
  assert.equal(capabilities, 'Invalid params: _meta["io.modelcontextprotocol/clientCapabilities"] is over the limit of 65536 bytes');
  const wide = Object.fromEntries(Array.from({ length: 20_000 }, (_, index) => [`k${index}`, {}]));
  assert.match(envelopeRefusal({ _meta: { "io.modelcontextprotocol/clientCapabilities": wide } }) ?? "", /over the limit of 65536 bytes/);
  assert.equal(envelopeRefusal({ _meta: { "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} }, sampling: {} } } }), undefined);
  assert.equal(envelopeRefusal({ requestState: "s".repeat(10 * MB) }), "Invalid params: requestState is 10000000 characters, over the limit of 262144");
  assert.equal(envelopeRefusal({ requestState: "s".repeat(1000) }), undefined);
});

test("bounds: a second listen with an open id is refused and counts nothing: its cancel unsubscribes", () => {
  const watched: string[] = [];
  const listens = new ListenSubscriptions(() => {}, (uri, on) => watched.push(`${on ? "+" : "-"}${uri}`));
  const params = { notifications: { resourceSubscriptions: ["test://a"] } };
  assert.equal(listens.open(5, params), undefined);
  assert.equal(listens.open(5, params), 'Invalid params: subscriptions/listen 5 is already open: cancel it first or use another id');
  assert.equal(listens.cancelled(5), true);
  assert.deepEqual(watched, ["+test://a", "-test://a"], "the URI is unsubscribed behind us");
});

test(`bounds: at most ${MAX_LISTENS} listens, and ${MAX_URIS_PER_LISTEN} URIs per listen`, () => {
  const listens = new ListenSubscriptions(() => {}, () => {});
  const uris = Array.from({ length: MAX_URIS_PER_LISTEN + 1 }, (_, index) => `test://${index}`);
  assert.equal(
    listens.open("big", { notifications: { resourceSubscriptions: uris } }),
    `Invalid params: notifications.resourceSubscriptions has ${MAX_URIS_PER_LISTEN + 1} URIs, over the limit of ${MAX_URIS_PER_LISTEN}`,
  );
  for (let id = 0; id < MAX_LISTENS; id++) assert.equal(listens.open(id, { notifications: { toolsListChanged: true } }), undefined);
  assert.equal(listens.open("one more", {}), `Invalid params: ${MAX_LISTENS} listens are open, the most a connection may have: cancel one first`);
  listens.cancelled(0);
  assert.equal(listens.open("one more", {}), undefined);
});

/** A call 7 for `tool` parked with one question; its requestState and the question's key. */
async function parkedCall(tool = echo) {
  const sent: Sent[] = [];
  const parked = new ParkedCalls((message) => sent.push(message));
  parked.noteTool(7, useTool(tool));
  const question = parked.ask(7, { method: "elicitation/create", params: { message: "Name?" } });
  question.catch(() => {});
  await tick();
  const { requestState, inputRequests } = sent[0].result;
  return { parked, sent, question, state: requestState as string, key: Object.keys(inputRequests)[0] };
}

test("bounds: a retry naming another tool, or open_toolbox, is refused", async () => {
  const { parked, state, key } = await parkedCall();
  const answers = { [key]: { action: "accept", content: {} } };
  const other = call(8, { ...useTool({ ...echo, name: "add" }), requestState: state, inputResponses: answers });
  assert.equal(parked.refusal(other), 'Invalid params: requestState belongs to a call of "use_tool" (["plain","one","echo"]), not of "use_tool" (["plain","one","add"])');
  const open = call(9, { name: "open_toolbox", arguments: { toolbox_name: "plain" }, requestState: state, inputResponses: answers });
  assert.match(parked.refusal(open) ?? "", /^Invalid params: requestState belongs to a call of "use_tool" .*, not of "open_toolbox"$/);
  assert.equal(parked.refusal(call(10, { ...useTool(), requestState: state, inputResponses: answers })), undefined, "the same tool is a retry");
});

test("bounds: a second retry in flight with the same id is refused", async () => {
  const { parked, state } = await parkedCall();
  const retry = call(8, { ...useTool(), requestState: state, inputResponses: {} });
  assert.equal(parked.refusal(retry), undefined);
  assert.equal(parked.retry(retry), true);
  assert.equal(parked.refusal(retry), "Invalid params: id 8 is already in use by a retry in flight");
});

test("bounds: an array as an answer, or as inputResponses, is refused", async () => {
  const { parked, state, key } = await parkedCall();
  assert.equal(
    parked.refusal(call(8, { ...useTool(), requestState: state, inputResponses: { [key]: [{ action: "accept" }] } })),
    `Invalid params: inputResponses["${key}"] is an array: an answer is an object`,
  );
  assert.equal(parked.refusal(call(8, { ...useTool(), requestState: state, inputResponses: [] })), "Invalid params: inputResponses must be an object");
});

test(`bounds: at most ${MAX_HELD_RESULTS} results are held for a retry; past it the oldest is dropped`, async () => {
  const sent: Sent[] = [];
  const parked = new ParkedCalls((message) => sent.push(message));
  for (let id = 0; id <= MAX_HELD_RESULTS; id++) parked.ask(id, { method: "roots/list" }).catch(() => {});
  await tick();
  const states = sent.map((message) => message.result.requestState as string);
  for (let id = 0; id <= MAX_HELD_RESULTS; id++) {
    assert.equal(parked.answer({ jsonrpc: "2.0", id, result: { content: [] } } as JSONRPCMessage), undefined, `result ${id} held`);
  }
  assert.equal(parked.retry(call(5_000, { name: "use_tool", requestState: states[0] })), false, "the oldest was dropped");
  assert.equal(parked.retry(call(5_001, { name: "use_tool", requestState: states[1] })), true);
  assert.deepEqual(sent.at(-1), { jsonrpc: "2.0", id: 5_001, result: { content: [] } });
});
