/**
 * Which call a server's question belongs to: the call whose stream or result it came in, the call
 * of the task its `_meta` names, else (a 2025 stdio link says nothing) the oldest call that carries
 * no question yet, so that concurrent calls each get one of their own.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { notificationOwner, questionOwner, RELATED_TASK_KEY, type ServerCalls, taskPlaced } from "../../src/downstream/question-owner.ts";
import type { CallInFlight } from "../../src/downstream/call-lane.ts";
import type { RequestId } from "../../src/protocol/sdk.ts";

function call(requestId: string | undefined, relatedRequestId: number, taskId?: string): CallInFlight {
  return { requestId, relatedRequestId, taskId, abandoned: new AbortController().signal, hold: () => () => {}, questions: 0 };
}

function server(calls: CallInFlight[], streams: Record<string, RequestId> = {}): ServerCalls {
  return { inFlight: () => calls, askedFor: (id) => streams[String(id)] };
}

/** Asks like the relay does: the owner carries the question until it is answered. */
function ask(calls: ServerCalls, id: RequestId, meta?: unknown): CallInFlight | undefined {
  const { call: owner, guessed } = questionOwner({ id, meta }, calls);
  assert.equal(guessed, calls.askedFor(id) === undefined && meta === undefined, "guessed only where nothing says");
  if (owner) owner.questions++;
  return owner;
}

test("question owner: over a link that does not say, each question goes to the oldest call that carries none", () => {
  const [a, b, c] = [call("wb-1", 1), call("wb-2", 2), call("wb-3", 3)];
  const calls = server([a, b, c]);
  assert.deepEqual([ask(calls, 10), ask(calls, 11), ask(calls, 12)].map((owner) => owner?.relatedRequestId), [1, 2, 3]);
  // b's question is answered: the next one is b's, though a and c were sent before and after it.
  b.questions--;
  assert.equal(ask(calls, 13), b);
  // Every call carries one: the question joins the oldest of those with the fewest.
  assert.deepEqual([ask(calls, 14), ask(calls, 15), ask(calls, 16)], [a, b, c]);
  assert.deepEqual(questionOwner({ id: 17 }, server([])), { call: undefined, guessed: true }, "no call in flight: no owner");
});

test("question owner: a question that came on a call's own stream (or in its result) is that call's, whatever it carries", () => {
  const [a, b] = [call("wb-1", 1), call("wb-2", 2)];
  const calls = server([a, b], { "20": "wb-2", "21": "wb-1", "22": "wb-2", "23": "era-input-9", "24": 5 });
  // The second call asks first: order says nothing.
  assert.equal(ask(calls, 20), b);
  assert.equal(ask(calls, 21), a);
  assert.equal(ask(calls, 22), b, "a second question of the same call, though another carries none");
  // On the stream of a request that is no call in flight (prompts/get, a call that is over): none.
  assert.equal(ask(calls, 23), undefined);
  assert.equal(ask(calls, 24), undefined);
});

test("question owner: a task's request is its call's by the related-task _meta", () => {
  const plain = call("wb-1", 1);
  const task = call(undefined, 2, "task-7");
  const calls = server([plain, task]);
  assert.equal(ask(calls, 30, { [RELATED_TASK_KEY]: { taskId: "task-7" } }), task);
  assert.equal(ask(calls, 31, { [RELATED_TASK_KEY]: { taskId: "task-other" } }), undefined, "a task of no call in flight");
  // A task call that has not read its task's id yet is the one a new task's request is for.
  const creating = call(undefined, 3);
  assert.equal(questionOwner({ id: 32, meta: { [RELATED_TASK_KEY]: { taskId: "task-8" } } }, server([plain, creating])).call, creating);
  // Two task calls still waiting for their ids: nothing says which asked, so it is a guess (which
  // the relay refuses across sessions), not a certainty.
  const other = call(undefined, 4);
  const meta = { [RELATED_TASK_KEY]: { taskId: "task-9" } };
  assert.equal(questionOwner({ id: 33, meta }, server([plain, creating, other])).guessed, true);
});

test("question owner: a task's question read before two waiting task calls learned their ids waits until its own call learns it", async () => {
  const learned: (() => void)[] = [];
  const waiting = (related: number) => ({ ...call(undefined, related), taskKnown: new Promise<void>((resolve) => learned.push(resolve)) });
  const [first, second] = [waiting(1), waiting(2)];
  const calls = server([first, second]);
  const meta = { [RELATED_TASK_KEY]: { taskId: "task-second" } };
  // The answers creating both tasks were read, and the second task's question after them: the calls learn their ids a turn later.
  const placed = taskPlaced(meta, calls, 5_000).then(() => questionOwner({ id: 40, meta }, calls));
  await Promise.resolve();
  second.taskId = "task-second";
  learned[1]();
  assert.deepEqual(await placed, { call: second, guessed: false }, "the second call's, not a guess that gives it to the first");
  // A question of no task, or with one task call waiting, is placed at once; waiting is bounded.
  const started = Date.now();
  await taskPlaced(undefined, calls, 5_000);
  await taskPlaced({ [RELATED_TASK_KEY]: { taskId: "task-x" } }, server([waiting(3)]), 5_000);
  await taskPlaced({ [RELATED_TASK_KEY]: { taskId: "task-y" } }, server([waiting(4), waiting(5)]), 50);
  assert.ok(Date.now() - started < 2_000);
});

test("question owner: a log message goes to the call it is known to belong to, or to the only call, never guessed among several", () => {
  const [a, b] = [call("wb-1", 1), call("wb-2", 2, "task-1")];
  assert.equal(notificationOwner({}, server([a])), a);
  assert.equal(notificationOwner({}, server([a, b])), undefined);
  assert.equal(notificationOwner({ meta: { [RELATED_TASK_KEY]: { taskId: "task-1" } } }, server([a, b])), b);
  assert.equal(notificationOwner({}, server([])), undefined);
});
