/** The sampling decision: a ratio of new traces by their ids, a parent's decision followed or not. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { sampledByRatio, sampledFlags } from "../../src/telemetry/sampler.ts";
import { newTraceId } from "../../src/telemetry/ids.ts";

const SAMPLED_PARENT = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", traceFlags: 1, remote: true };
const UNSAMPLED_PARENT = { ...SAMPLED_PARENT, traceFlags: 0 };

test("sampler: a ratio keeps about that share of new traces, each trace always decided alike", () => {
  const ids = Array.from({ length: 4000 }, () => newTraceId());
  for (const ratio of [0.1, 0.25, 0.5, 0.9]) {
    const kept = ids.filter((id) => sampledFlags({ parentBased: true, ratio }, id, undefined) === 1).length / ids.length;
    // 4,000 draws: the share is within 0.04 of the ratio (five standard deviations at 0.5) but once in about 600,000 runs.
    assert.ok(Math.abs(kept - ratio) < 0.04, `ratio ${ratio} kept ${kept}`);
  }
  for (const id of ids.slice(0, 50)) assert.equal(sampledByRatio(id, 0.3), sampledByRatio(id, 0.3));
});

test("sampler: a trace kept at one ratio is kept at every greater one; 0 keeps none and 1 all", () => {
  const ids = Array.from({ length: 500 }, () => newTraceId());
  for (const id of ids) {
    const kept = [0.01, 0.2, 0.5, 0.8, 0.99].map((ratio) => sampledByRatio(id, ratio));
    assert.deepEqual(kept, [...kept].sort((a, b) => Number(a) - Number(b)), id);
    assert.equal(sampledFlags({ parentBased: false, ratio: 0 }, id, undefined), 0);
    assert.equal(sampledFlags({ parentBased: false, ratio: 1 }, id, undefined), 1);
  }
  // The decision reads the id's last 56 bits: the top of them all ones is kept at any ratio above 0.
  assert.equal(sampledByRatio(`${"0".repeat(18)}${"f".repeat(14)}`, 0.001), true);
  assert.equal(sampledByRatio(`${"f".repeat(18)}${"0".repeat(13)}1`, 0.999), false);
});

test("sampler: parent-based follows the parent's flag whatever the ratio; the others decide again by the trace id", () => {
  assert.equal(sampledFlags({ parentBased: true, ratio: 0 }, SAMPLED_PARENT.traceId, SAMPLED_PARENT), 1);
  assert.equal(sampledFlags({ parentBased: true, ratio: 1 }, UNSAMPLED_PARENT.traceId, UNSAMPLED_PARENT), 0);
  assert.equal(sampledFlags({ parentBased: false, ratio: 0 }, SAMPLED_PARENT.traceId, SAMPLED_PARENT), 0);
  assert.equal(sampledFlags({ parentBased: false, ratio: 1 }, UNSAMPLED_PARENT.traceId, UNSAMPLED_PARENT), 1);
});
