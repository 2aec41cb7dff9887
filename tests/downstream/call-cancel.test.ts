/**
 * A client's cancellation of one call (issue 42): its AbortSignal is made only when asked for, and
 * is aborted with the reason whether asked for before or after; the lane's call watches it
 * directly, and a cancelled call fails and is cancelled downstream as with a signal.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { CallCancel } from "../../src/downstream/call-cancel.ts";
import { CallError, ToolCallLane } from "../../src/downstream/call-lane.ts";

test("call cancel: the signal is made when asked for, aborted with the reason before or after; the watcher hears once", () => {
  const early = new CallCancel();
  const signal = early.signal;
  assert.equal(early.signal, signal, "the same signal each time");
  const heard: string[] = [];
  early.watch({ handleEvent: () => heard.push("early") });
  early.abort("stop");
  early.abort("again");
  assert.deepEqual([signal.aborted, signal.reason, early.reason, heard], [true, "stop", "stop", ["early"]]);

  const late = new CallCancel();
  late.watch({ handleEvent: () => heard.push("late") });
  late.watch(undefined);
  late.abort("gone");
  assert.deepEqual(heard, ["early"], "a watcher taken off hears nothing");
  assert.deepEqual([late.signal.aborted, late.signal.reason], [true, "gone"], "made after the abort: aborted at once");
});

test("call cancel: a lane call watching it fails when the client cancels and is cancelled downstream", async () => {
  const sent: Record<string, any>[] = [];
  const lane = new ToolCallLane((message) => (sent.push(message as Record<string, any>), Promise.resolve()));
  const call = { name: "echo", arguments: {}, idleTimeoutMs: 5_000, maxTimeMs: 10_000 };
  const cancel = new CallCancel();
  const pending = lane.call({ ...call, cancel });
  const id = sent.at(-1)!.id;
  cancel.abort("user said stop");
  const error = await pending.then(() => undefined, (e) => e);
  assert.ok(error instanceof CallError);
  assert.deepEqual(error.failure, { kind: "cancelled", reason: "user said stop" });
  assert.deepEqual(sent.at(-1)!.params, { requestId: id, reason: "user said stop" });
  const already = await lane.call({ ...call, cancel }).then(() => undefined, (e) => e);
  assert.deepEqual(already.failure, { kind: "cancelled", reason: "user said stop" }, "cancelled before it began: not sent");
  assert.equal(sent.filter((m) => m.method === "tools/call").length, 1);
  lane.close();
});
