/**
 * A client's request bodies in flight over HTTP (src/upstream/http/body-budget.ts, issue 38): past
 * the bound a request waits its turn, in order; the line is bounded by the same bytes, past it a
 * request is refused at once; a request that goes away leaves the line; clients do not share bounds.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { BodyBudget } from "../../../src/upstream/http/body-budget.ts";

const never = new AbortController().signal;

test("body budget: past the bound requests wait in order, the line is bounded too, and another client is not held up", async () => {
  const budget = new BodyBudget(100, 10_000);
  const first = await budget.enter("alice", 80, never);
  const second = await budget.enter("alice", 80, never);
  assert.ok(first && second, "under the bound: at once");
  const order: string[] = [];
  const third = budget.enter("alice", 60, never).then((release) => (order.push("third"), release));
  const gone = new AbortController();
  const fourth = budget.enter("alice", 30, gone.signal).then((release) => (order.push("fourth"), release));
  assert.equal(await budget.enter("alice", 20, never), undefined, "the line holds 100 bytes declared: refused at once");
  assert.ok(await budget.enter("bob", 80, never), "bob has his own bound");
  gone.abort();
  assert.equal(await fourth, undefined);
  first();
  assert.equal(budget.heldBy("alice"), 140, "a release under the bound lets the next one in");
  second();
  const releaseThird = await third;
  assert.deepEqual(order, ["fourth", "third"]);
  assert.equal(budget.heldBy("alice"), 60);
  releaseThird!();
  releaseThird!();
  assert.equal(budget.heldBy("alice"), 0, "a release counts once");
});

test("body budget: a wait that runs out is refused and leaves the line", async () => {
  const budget = new BodyBudget(10, 30);
  const held = await budget.enter("alice", 10, never);
  assert.equal(await budget.enter("alice", 5, never), undefined);
  held!();
  assert.equal(budget.heldBy("alice"), 0);
  assert.ok(await budget.enter("alice", 5, never));
});
