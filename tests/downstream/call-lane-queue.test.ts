/**
 * The call lane and its server's queue (issue 38): past the queue's bound a call waits its turn
 * and is sent only then; a call given up while waiting leaves the line, within its own timeout,
 * and the server hears nothing of it; one given up while its frames are still queued is taken
 * back instead of cancelled; one already written is cancelled as before.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { CallError, type LaneQueue, ToolCallLane } from "../../src/downstream/call-lane.ts";
import type { Timers } from "../../src/downstream/idle-clock.ts";

/** Real timers with short timeouts: each test waits at most a few hundred ms. */
const call = (signal?: AbortSignal) => ({ name: "echo", arguments: { text: "hi" }, idleTimeoutMs: 150, maxTimeMs: 1_000, signal });
const timers: Timers = { set: (callback, ms) => setTimeout(callback, ms), clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>), now: () => performance.now() };

/** A queue that gives turns only when told to, and can take back what the test says is queued. */
function queue() {
  const line: { go: () => void; signal: AbortSignal }[] = [];
  const queued = new Set<string>();
  const it: LaneQueue = {
    whenRoom: (go, signal) => void line.push({ go, signal: typeof signal === "function" ? signal() : signal }),
    withdraw: (id) => queued.delete(String(id)),
  };
  return { it, line, queued };
}

function lane(q: LaneQueue) {
  const sent: Record<string, any>[] = [];
  const it = new ToolCallLane((message) => (sent.push(message as Record<string, any>), Promise.resolve()), timers, q);
  return { lane: it, sent };
}

const failureOf = async (promise: Promise<unknown>) => {
  const error = await promise.then(() => undefined, (e) => e);
  assert.ok(error instanceof CallError, String(error));
  return error.failure.kind;
};

test("call lane queue: a call waits for its turn and is sent only then", async () => {
  const q = queue();
  const { lane: l, sent } = lane(q.it);
  const pending = l.call(call());
  assert.equal(sent.length, 0, "nothing sent before the turn");
  assert.equal(q.line.length, 1);
  q.line[0].go();
  assert.equal(sent.length, 1);
  const id = sent[0].id;
  l.claim({ jsonrpc: "2.0", id, result: { content: [] } } as never);
  assert.deepEqual(await pending, { content: [] });
});

test("call lane queue: a call that times out while waiting leaves the line, and the server hears nothing", async () => {
  const q = queue();
  const { lane: l, sent } = lane(q.it);
  const started = Date.now();
  assert.equal(await failureOf(l.call(call())), "idle-timeout");
  assert.ok(Date.now() - started < 1_000);
  assert.equal(q.line[0].signal.aborted, true, "out of the line");
  assert.deepEqual(sent, [], "no request, no cancellation");
});

test("call lane queue: a call given up while its frames are queued is taken back, not cancelled; one written is cancelled", async () => {
  const q = queue();
  const { lane: l, sent } = lane(q.it);
  const queuedOne = new AbortController();
  const first = l.call(call(queuedOne.signal));
  q.line[0].go();
  q.queued.add(sent[0].id);
  queuedOne.abort("stop");
  assert.equal(await failureOf(first), "cancelled");
  assert.equal(sent.filter((message) => message.method === "notifications/cancelled").length, 0, "taken back: nothing to cancel");
  const writtenOne = new AbortController();
  const second = l.call(call(writtenOne.signal));
  q.line[1].go();
  writtenOne.abort("stop");
  assert.equal(await failureOf(second), "cancelled");
  assert.deepEqual(sent.filter((message) => message.method === "notifications/cancelled").map((message) => message.params.requestId), [sent[1].id]);
});
