import { test } from "node:test";
import assert from "node:assert/strict";
import { MAX_FAILURES, RestartPolicy } from "../../src/downstream/restart-policy.ts";

function clocked() {
  let now = 1_000;
  const policy = new RestartPolicy(() => now);
  return { policy, advance: (ms: number) => (now += ms) };
}

test("restart policy: the first failure restarts at once, then 0.5 s doubling", () => {
  const { policy } = clocked();
  const delays = [];
  for (let i = 0; i < MAX_FAILURES - 1; i++) {
    policy.failed("boom");
    delays.push(policy.delayMs);
  }
  assert.deepEqual(delays, [0, 500, 1_000, 2_000]);
  assert.equal(policy.givenUp, false);
  policy.failed("boom");
  assert.equal(policy.givenUp, true);
  assert.equal(policy.lastReason, "boom");
});

test("restart policy: the delay counts down with time and never exceeds 30 s", () => {
  const { policy, advance } = clocked();
  policy.failures = 20;
  policy.failed("again");
  assert.equal(policy.delayMs, 30_000);
  advance(29_000);
  assert.equal(policy.delayMs, 1_000);
  advance(5_000);
  assert.equal(policy.delayMs, 0);
});

test("restart policy: a successful call forgives earlier failures", () => {
  const { policy } = clocked();
  policy.failed("a");
  policy.failed("b");
  policy.succeeded();
  assert.equal(policy.failures, 0);
  assert.equal(policy.delayMs, 0);
});

test("restart policy: waitForTurn ends early when the call is cancelled", async () => {
  const policy = new RestartPolicy();
  policy.failed("a");
  policy.failed("b");
  policy.failed("c");
  policy.failed("d"); // 2 s to wait
  const controller = new AbortController();
  const started = Date.now();
  const waiting = policy.waitForTurn(controller.signal);
  setTimeout(() => controller.abort(), 50);
  await waiting;
  assert.ok(Date.now() - started < 1_500, "ended at the abort, not after the 2 s wait");
});
