import { test } from "node:test";
import assert from "node:assert/strict";
import { CallError, serverAnswer, ToolCallLane } from "../../src/downstream/call-lane.ts";
import type { Timers } from "../../src/downstream/idle-clock.ts";
import type { JSONRPCMessage } from "../helpers/sdk.ts";

/** A clock that moves only when told to, so timeouts are checked to the millisecond, unhurried. */
function manualTimers() {
  let now = 0;
  let nextHandle = 1;
  const due = new Map<number, { at: number; callback: () => void }>();
  const timers: Timers = {
    set(callback, ms) {
      due.set(nextHandle, { at: now + ms, callback });
      return nextHandle++;
    },
    clear: (handle) => void due.delete(handle as number),
    now: () => now,
  };
  /** Moves the clock on, firing what falls due in order, then lets the promises settle. */
  async function advance(ms: number): Promise<void> {
    const until = now + ms;
    for (;;) {
      const [handle, next] = [...due].sort(([, a], [, b]) => a.at - b.at)[0] ?? [];
      if (handle === undefined || next.at > until) break;
      due.delete(handle);
      now = next.at;
      next.callback();
    }
    now = until;
    for (let i = 0; i < 10; i++) await Promise.resolve();
  }
  /** Timers set so far, and those still due. */
  const counts = () => ({ set: nextHandle - 1, due: due.size });
  return { timers, advance, counts };
}

/** A lane whose sent messages are recorded, with the id of the last tools/call. */
function lane(timers?: Timers) {
  const sent: Record<string, any>[] = [];
  const it = new ToolCallLane((message) => (sent.push(message as Record<string, any>), Promise.resolve()), timers);
  const lastId = () => sent.filter((m) => m.method === "tools/call").at(-1)!.id as string;
  return { lane: it, sent, lastId };
}

/** Whether a promise has settled yet, without waiting for it. */
function tracked(promise: Promise<unknown>) {
  const state = { settled: false, failure: undefined as unknown };
  promise.then(() => (state.settled = true), (error) => ((state.settled = true), (state.failure = error.failure)));
  return state;
}

const progress = (id: string, step: number) =>
  ({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: id, progress: step } }) as JSONRPCMessage;

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

test("call lane: an error response fails the call with the server's message, code and data", async () => {
  const { lane: l, lastId } = lane();
  const pending = l.call(call);
  l.claim({ jsonrpc: "2.0", id: lastId(), error: { code: -32603, message: "boom" } } as JSONRPCMessage);
  assert.deepEqual(await failureOf(pending), { kind: "remote", message: "boom", code: -32603 });
  const data = { elicitations: [{ mode: "url", elicitationId: "e1", url: "https://example.com/a", message: "Sign in" }] };
  const another = l.call(call);
  l.claim({ jsonrpc: "2.0", id: lastId(), error: { code: -32042, message: "URL elicitation required", data } } as JSONRPCMessage);
  const error = await another.then(() => undefined, (e) => e);
  assert.deepEqual(error.failure, { kind: "remote", message: "URL elicitation required", code: -32042, data });
  // Found behind the error a connection throws with the call's error as its cause.
  assert.deepEqual(serverAnswer(new Error("wrapped", { cause: error })), { code: -32042, data });
  assert.equal(serverAnswer(new CallError({ kind: "closed" })), undefined);
});

test("call lane: progress reaches the listener and resets the idle timer; silence times out and cancels", async () => {
  const { timers, advance } = manualTimers();
  const { lane: l, sent, lastId } = lane(timers);
  const seen: unknown[] = [];
  const call_ = tracked(l.call({ ...call, idleTimeoutMs: 1_000, onProgress: (p) => seen.push(p) }));
  const id = lastId();
  // Three gaps of 900 ms: 2.7 s in all, never 1 s silent.
  for (let step = 1; step <= 3; step++) {
    await advance(900);
    assert.equal(l.claim(progress(id, step)), true);
  }
  assert.deepEqual(seen, [{ progress: 1 }, { progress: 2 }, { progress: 3 }]);
  await advance(999);
  assert.equal(call_.settled, false, "999 ms after the last progress the call still runs");
  await advance(1);
  assert.deepEqual(call_.failure, { kind: "idle-timeout" });
  assert.deepEqual(sent.at(-1), {
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: id, reason: "idle-timeout" },
  });
});

test("call lane: the total time caps a call that keeps reporting progress", async () => {
  const { timers, advance } = manualTimers();
  const { lane: l, sent, lastId } = lane(timers);
  const call_ = tracked(l.call({ ...call, idleTimeoutMs: 1_000, maxTimeMs: 2_500 }));
  const id = lastId();
  for (let step = 1; step <= 4; step++) {
    await advance(600);
    l.claim(progress(id, step));
  }
  await advance(99);
  assert.equal(call_.settled, false, "at 2,499 ms the call still runs");
  await advance(1);
  assert.deepEqual(call_.failure, { kind: "max-time" });
  assert.deepEqual(sent.at(-1)!.params, { requestId: id, reason: "max-time" });
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

test("call lane: a hold (the client answering the server) stops the idle timer; release starts it over", async () => {
  const { timers, advance } = manualTimers();
  const { lane: l } = lane(timers);
  const pending = tracked(l.call({ ...call, maxTimeMs: 20_000, relatedRequestId: 7 }));
  const [inFlight] = l.inFlight();
  assert.equal(inFlight.relatedRequestId, 7);
  await advance(4_000);
  const release = inFlight.hold();
  await advance(6_000);
  assert.equal(pending.settled, false, "no idle timeout while held");
  release();
  await advance(4_999);
  assert.equal(pending.settled, false, "a full idle period after the release");
  await advance(1);
  assert.deepEqual(pending.failure, { kind: "idle-timeout" });
  assert.equal(inFlight.abandoned.aborted, true);
  assert.deepEqual(l.inFlight(), []);
});

test("call lane: the total time runs on while held", async () => {
  const { timers, advance } = manualTimers();
  const { lane: l } = lane(timers);
  const pending = tracked(l.call(call));
  l.inFlight()[0].hold();
  await advance(10_000);
  assert.deepEqual(pending.failure, { kind: "max-time" });
});

test("call lane: a call in flight is abandoned when given up, not when it is answered", async () => {
  const { lane: l, lastId } = lane();
  const answered = l.call(call);
  const [first] = l.inFlight();
  l.claim({ jsonrpc: "2.0", id: lastId(), result: { content: [] } } as JSONRPCMessage);
  await answered;
  assert.equal(first.abandoned.aborted, false);
  const controller = new AbortController();
  const cancelled = l.call({ ...call, signal: controller.signal });
  const [second] = l.inFlight();
  assert.notEqual(second, first);
  controller.abort("gone");
  await failureOf(cancelled);
  assert.equal(second.abandoned.aborted, true);
});

test("call lane: the abandoned signal, made only when asked for, is aborted with the reason whether asked before or after", async () => {
  const { timers, advance } = manualTimers();
  const { lane: l } = lane(timers);
  const early = tracked(l.call(call));
  const [first] = l.inFlight();
  const before = first.abandoned;
  assert.equal(before.aborted, false);
  assert.equal(first.abandoned, before, "the same signal each time");
  await advance(5_000);
  assert.deepEqual(early.failure, { kind: "idle-timeout" });
  assert.equal(before.aborted, true);
  assert.equal(before.reason, "idle-timeout");
  const late = tracked(l.call(call));
  const [second] = l.inFlight();
  await advance(5_000);
  assert.deepEqual(late.failure, { kind: "idle-timeout" });
  assert.equal(second.abandoned.aborted, true, "made after the call was given up: aborted at once");
  assert.equal(second.abandoned.reason, "idle-timeout");
});

test("call lane: the calls in flight are listed in the order they were sent, each with the id it went with", async () => {
  const { lane: l, sent } = lane();
  const calls = [l.call({ ...call, relatedRequestId: 1 }), l.call({ ...call, relatedRequestId: 2 }), l.call({ ...call, relatedRequestId: 3 })];
  const ids = sent.filter((m) => m.method === "tools/call").map((m) => m.id);
  assert.deepEqual(l.inFlight().map((c) => [c.requestId, c.relatedRequestId, c.questions]), [[ids[0], 1, 0], [ids[1], 2, 0], [ids[2], 3, 0]]);
  l.claim({ jsonrpc: "2.0", id: ids[1], result: { content: [] } } as JSONRPCMessage);
  await calls[1];
  assert.deepEqual(l.inFlight().map((c) => c.relatedRequestId), [1, 3], "an answered call is no longer in flight");
  l.close();
  await Promise.allSettled(calls);
});

test("call lane: one timer for all the calls in flight; progress sets none; the last call out clears it", async () => {
  const { timers, advance, counts } = manualTimers();
  const { lane: l, sent } = lane(timers);
  const calls = Array.from({ length: 64 }, () => l.call(call));
  assert.deepEqual(counts(), { set: 1, due: 1 }, "64 calls, one timer");
  const ids = sent.filter((m) => m.method === "tools/call").map((m) => m.id as string);
  await advance(1_000);
  for (const id of ids) l.claim(progress(id, 1));
  assert.deepEqual(counts(), { set: 1, due: 1 }, "progress moves deadlines, not timers");
  for (const id of ids) l.claim({ jsonrpc: "2.0", id, result: { content: [] } } as JSONRPCMessage);
  await Promise.all(calls);
  assert.deepEqual(counts(), { set: 1, due: 0 }, "nothing in flight, nothing due: the process may exit");
});

test("call lane: a call due before the timer set for the others fails on time; the others keep theirs", async () => {
  const { timers, advance } = manualTimers();
  const { lane: l, lastId } = lane(timers);
  const long = tracked(l.call(call));
  const longId = lastId();
  const short = tracked(l.call({ ...call, idleTimeoutMs: 1_000 }));
  await advance(999);
  assert.equal(short.settled, false);
  await advance(1);
  assert.deepEqual(short.failure, { kind: "idle-timeout" });
  assert.equal(long.settled, false);
  // The long call's progress at 3 s moves its idle deadline to 8 s; the total (10 s) stays.
  await advance(2_000);
  l.claim(progress(longId, 1));
  await advance(4_999);
  assert.equal(long.settled, false, "at 7,999 ms the call still runs");
  await advance(1);
  assert.deepEqual(long.failure, { kind: "idle-timeout" });
});
