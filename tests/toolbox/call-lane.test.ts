import { test } from "node:test";
import assert from "node:assert/strict";
import { CallError, ToolCallLane } from "../../src/toolbox/call-lane.ts";
import type { JSONRPCMessage } from "../helpers/sdk.ts";

/** A lane whose sent messages are recorded, with the id of the last tools/call. */
function lane() {
  const sent: Record<string, any>[] = [];
  const it = new ToolCallLane((message) => (sent.push(message as Record<string, any>), Promise.resolve()));
  const lastId = () => sent.filter((m) => m.method === "tools/call").at(-1)!.id as string;
  return { lane: it, sent, lastId };
}

const call = { name: "echo", arguments: { text: "hi" }, idleTimeoutMs: 5_000, maxTimeMs: 10_000 };
const failureOf = async (promise: Promise<unknown>) => {
  const error = await promise.then(() => undefined, (e) => e);
  assert.ok(error instanceof CallError, String(error));
  return error.failure;
};

test("call lane: a result is matched by id and passed on unchanged; other traffic is left alone", async () => {
  const { lane: l, sent, lastId } = lane();
  const pending = l.call(call);
  const id = lastId();
  assert.deepEqual(sent[0], {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "echo", arguments: { text: "hi" }, _meta: { progressToken: id } },
  });
  assert.equal(l.claim({ jsonrpc: "2.0", id: 1, result: {} } as JSONRPCMessage), false, "the SDK's own ids");
  assert.equal(l.claim({ jsonrpc: "2.0", method: "notifications/message", params: {} } as JSONRPCMessage), false);
  const result = { content: [{ type: "text", text: "hi" }], structuredContent: { a: 1 }, _meta: { x: 1 } };
  assert.equal(l.claim({ jsonrpc: "2.0", id, result } as JSONRPCMessage), true);
  assert.deepEqual(await pending, result);
});

test("call lane: an error response fails the call with the server's message", async () => {
  const { lane: l, lastId } = lane();
  const pending = l.call(call);
  l.claim({ jsonrpc: "2.0", id: lastId(), error: { code: -32603, message: "boom" } } as JSONRPCMessage);
  assert.deepEqual(await failureOf(pending), { kind: "remote", message: "boom" });
});

test("call lane: progress reaches the listener and resets the idle timer; silence times out and cancels", async () => {
  const { lane: l, sent, lastId } = lane();
  const seen: unknown[] = [];
  const pending = l.call({ ...call, idleTimeoutMs: 150, onProgress: (p) => seen.push(p) });
  const id = lastId();
  for (let step = 1; step <= 3; step++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    l.claim({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: id, progress: step } } as JSONRPCMessage);
  }
  assert.deepEqual(seen, [{ progress: 1 }, { progress: 2 }, { progress: 3 }]);
  assert.deepEqual(await failureOf(pending), { kind: "idle-timeout" });
  assert.deepEqual(sent.at(-1), {
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: id, reason: "idle-timeout" },
  });
});

test("call lane: the total time caps a call that keeps reporting progress", async () => {
  const { lane: l, lastId } = lane();
  const pending = l.call({ ...call, idleTimeoutMs: 100, maxTimeMs: 250 });
  const id = lastId();
  const ticker = setInterval(() => {
    l.claim({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: id, progress: 1 } } as JSONRPCMessage);
  }, 50);
  try {
    assert.deepEqual(await failureOf(pending), { kind: "max-time" });
  } finally {
    clearInterval(ticker);
  }
});

test("call lane: an abort cancels downstream; closing fails every pending call at once", async () => {
  const { lane: l, sent, lastId } = lane();
  const controller = new AbortController();
  const aborted = l.call({ ...call, signal: controller.signal });
  const id = lastId();
  controller.abort("user said stop");
  assert.deepEqual(await failureOf(aborted), { kind: "cancelled", reason: "user said stop" });
  assert.deepEqual(sent.at(-1)!.params, { requestId: id, reason: "user said stop" });

  const first = l.call(call);
  const second = l.call(call);
  l.close();
  assert.deepEqual(await failureOf(first), { kind: "closed" });
  assert.deepEqual(await failureOf(second), { kind: "closed" });
  assert.deepEqual(await failureOf(l.call(call)), { kind: "closed" });
  // A late answer for a settled call is not ours any more.
  assert.equal(l.claim({ jsonrpc: "2.0", id, result: {} } as JSONRPCMessage), false);
});
