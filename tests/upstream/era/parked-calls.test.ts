/**
 * A server's questions during a call, asked of a 2026-07-28 client through the call's result: the
 * retry carries the answers, the call's result answers the latest retry, a cancelled retry is a
 * cancelled call.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ParkedCalls } from "../../../src/upstream/era/parked-calls.ts";
import type { JSONRPCMessage } from "../../../src/protocol/sdk.ts";

// deno-lint-ignore no-explicit-any
type Sent = any;
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

function parkedWithLog() {
  const sent: Sent[] = [];
  return { parked: new ParkedCalls((message) => sent.push(message)), sent };
}

const retry = (id: number, state: string, inputResponses: Record<string, unknown>) =>
  ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "use_tool", inputResponses, requestState: state } }) as JSONRPCMessage;

test("parked calls: questions asked together go in one input_required; the retry answers them", async () => {
  const { parked, sent } = parkedWithLog();
  const first = parked.ask(7, { method: "elicitation/create", params: { message: "Name?" } });
  const second = parked.ask(7, { method: "roots/list" });
  await tick();
  assert.equal(sent.length, 1);
  const asked = sent[0];
  assert.equal(asked.id, 7);
  assert.equal(asked.result.resultType, "input_required");
  assert.deepEqual(Object.values(asked.result.inputRequests), [
    { method: "elicitation/create", params: { message: "Name?" } },
    { method: "roots/list" },
  ]);
  const [nameKey, rootsKey] = Object.keys(asked.result.inputRequests);
  assert.equal(parked.retry(retry(8, "someone else's state", {})), false, "a state not ours is the server's");
  assert.equal(parked.retry(retry(8, asked.result.requestState, { [nameKey]: { action: "accept", content: { name: "Ada" } }, [rootsKey]: { roots: [] } })), true);
  assert.deepEqual(await first, { action: "accept", content: { name: "Ada" } });
  assert.deepEqual(await second, { roots: [] });
  // The call's own answer goes to the retry, the client's latest request for it.
  const answered = parked.answer({ jsonrpc: "2.0", id: 7, result: { content: [] } } as JSONRPCMessage) as Sent;
  assert.equal(answered.id, 8);
  assert.deepEqual(parked.answer({ jsonrpc: "2.0", id: 7, result: {} } as JSONRPCMessage), { jsonrpc: "2.0", id: 7, result: {} }, "forgotten once answered");
});

test("parked calls: a result that comes before the retry waits for it; a question left unanswered is asked again", async () => {
  const { parked, sent } = parkedWithLog();
  const question = parked.ask(1, { method: "sampling/createMessage", params: {} });
  question.catch(() => {});
  await tick();
  const state = sent[0].result.requestState;
  assert.equal(parked.retry(retry(2, state, {})), true);
  await tick();
  assert.equal(sent.length, 2, "asked again in the retry's answer");
  assert.equal(sent[1].id, 2);
  assert.equal(parked.answer({ jsonrpc: "2.0", id: 1, result: { content: [] } } as JSONRPCMessage), undefined, "held");
  await assert.rejects(question, /The call ended/);
  assert.equal(parked.retry(retry(3, state, {})), true);
  assert.deepEqual(sent[2], { jsonrpc: "2.0", id: 3, result: { content: [] } });
});

test("parked calls: cancelling the retry cancels the call, known to the lane by its first id", async () => {
  const { parked, sent } = parkedWithLog();
  const question = parked.ask(10, { method: "elicitation/create", params: {} });
  await tick();
  parked.retry(retry(11, sent[0].result.requestState, {}));
  const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 11, reason: "stop" } } as JSONRPCMessage;
  assert.deepEqual(parked.cancelled(cancel), { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 10, reason: "stop" } });
  await assert.rejects(question, /cancelled/);
  const other = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 99 } } as JSONRPCMessage;
  assert.equal(parked.cancelled(other), other);
});

test("parked calls: a question whose asker gave up is withdrawn", async () => {
  const { parked, sent } = parkedWithLog();
  const controller = new AbortController();
  const question = parked.ask(20, { method: "elicitation/create", params: {} }, controller.signal);
  controller.abort(new Error("timed out"));
  await assert.rejects(question, /timed out/);
  await tick();
  assert.equal(sent.length, 0, "nothing left to ask");
});

test("parked calls: a second retry while the first still waits answers the first with an error", async () => {
  const { parked, sent } = parkedWithLog();
  const question = parked.ask(30, { method: "elicitation/create", params: {} });
  question.catch(() => {});
  await tick();
  const state = sent[0].result.requestState;
  assert.equal(parked.retry(retry(31, state, {})), true);
  await tick();
  assert.equal(sent.length, 2, "asked again in answer to the first retry");
  assert.equal(parked.retry(retry(32, state, {})), true);
  assert.equal(parked.retry(retry(33, state, {})), true);
  assert.deepEqual(sent.find((message) => message.id === 32)?.error?.code, -32600, "the waiting retry is not left unanswered");
  const answered = parked.answer({ jsonrpc: "2.0", id: 30, result: { content: [] } } as JSONRPCMessage) as Sent;
  assert.equal(answered.id, 33);
});
