/**
 * A client's request bodies in flight over HTTP (src/upstream/http/body-budget.ts, issue 38): past
 * the bound a request waits its turn, in order, however large the bodies in line; the line is
 * bounded by count, per client and for all clients, past which a request is refused at once; a
 * request that goes away leaves the line; a wait that runs out is refused; clients do not share bounds.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { BodyBudget } from "../../../src/upstream/http/body-budget.ts";

const never = new AbortController().signal;
type Entered = Awaited<ReturnType<BodyBudget["enter"]>>;
const released = (entered: Entered) => {
  assert.equal(typeof entered, "function");
  return entered as () => void;
};

test("body budget: past the bound requests wait in order (not refused for their bytes), the line is bounded by count, and another client is not held up", async () => {
  const budget = new BodyBudget({ max: 100, waitMs: 10_000, maxWaitingPerClient: 3, maxWaiting: 4 });
  const first = released(await budget.enter("alice", 80, never));
  const second = released(await budget.enter("alice", 80, never));
  const order: string[] = [];
  const third = budget.enter("alice", 90, never).then((entered) => (order.push("third"), entered));
  const gone = new AbortController();
  const fourth = budget.enter("alice", 90, gone.signal).then((entered) => (order.push("fourth"), entered));
  const fifth = budget.enter("alice", 90, never).then((entered) => (order.push("fifth"), entered));
  assert.equal(await budget.enter("alice", 20, never), "full", "three wait already: refused at once");
  assert.ok(released(await budget.enter("bob", 80, never)), "bob has his own bound");
  assert.ok(released(await budget.enter("bob", 80, never)));
  const bobGone = new AbortController();
  const bobWaits = budget.enter("bob", 80, bobGone.signal);
  assert.equal(await budget.enter("bob", 80, never), "full", "four wait in all: the line of all clients is full");
  gone.abort();
  assert.equal(await fourth, "waited");
  first();
  assert.equal(budget.heldBy("alice"), 170, "a release under the bound lets the next one in");
  const releaseThird = released(await third);
  second();
  releaseThird();
  const releaseFifth = released(await fifth);
  assert.deepEqual(order, ["fourth", "third", "fifth"]);
  assert.equal(budget.heldBy("alice"), 90);
  releaseFifth();
  releaseFifth();
  assert.equal(budget.heldBy("alice"), 0, "a release counts once");
  assert.equal(budget.heldBy("bob"), 160, "bob's third waits");
  bobGone.abort();
  assert.equal(await bobWaits, "waited");
});

test("body budget: a wait that runs out is refused and leaves the line", async () => {
  const budget = new BodyBudget({ max: 10, waitMs: 30 });
  const held = released(await budget.enter("alice", 10, never));
  assert.equal(await budget.enter("alice", 5, never), "waited");
  held();
  assert.equal(budget.heldBy("alice"), 0);
  assert.ok(released(await budget.enter("alice", 5, never)));
});
