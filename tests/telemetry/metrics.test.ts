/** The duration histograms: buckets as OTLP defines them, one series per attribute set, a bounded number of series, cumulative exports. */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { bucketOf, DURATION_BOUNDARIES, Histogram } from "../../src/telemetry/metrics.ts";
import { MetricReader } from "../../src/telemetry/metric-reader.ts";
import { type OtlpReceiver, startOtlpReceiver } from "../helpers/otlp-receiver.ts";

test("buckets: bucket i holds (bound i-1, bound i]; past the last bound is the last bucket", () => {
  assert.equal(bucketOf(DURATION_BOUNDARIES, 0), 0);
  assert.equal(bucketOf(DURATION_BOUNDARIES, 0.01), 0, "a value on a bound is in the bucket it closes");
  assert.equal(bucketOf(DURATION_BOUNDARIES, 0.010001), 1);
  assert.equal(bucketOf(DURATION_BOUNDARIES, 1), 6);
  assert.equal(bucketOf(DURATION_BOUNDARIES, 300), 13);
  assert.equal(bucketOf(DURATION_BOUNDARIES, 300.5), 14);
  assert.equal(bucketOf([], 5), 0);
});

test("histogram: count, sum, min, max and buckets per attribute set, whatever the attributes' order", () => {
  const histogram = new Histogram("h", "d", "s");
  histogram.record(0.005, { a: "1", b: "2" });
  histogram.record(0.5, { b: "2", a: "1" });
  histogram.record(400, { a: "1", b: "2" });
  histogram.record(1, { a: "other" });
  histogram.record(-1, { a: "1", b: "2" });
  histogram.record(NaN, { a: "1", b: "2" });
  const data = histogram.collect()!;
  assert.equal(data.points.length, 2);
  const [first, second] = data.points;
  assert.deepEqual({ ...first!, bucketCounts: undefined }, { attributes: { a: "1", b: "2" }, count: 3, sum: 400.505, min: 0.005, max: 400, bucketCounts: undefined });
  assert.deepEqual(first!.bucketCounts, [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
  assert.equal(second!.count, 1);
});

test("histogram: past the series limit, measurements go to one overflow series; memory stays bounded", () => {
  const histogram = new Histogram("h", "d", "s", DURATION_BOUNDARIES, 10);
  for (let index = 0; index < 10_000; index++) histogram.record(0.1, { "gen_ai.tool.name": `tool-${index}` });
  const data = histogram.collect()!;
  assert.equal(data.points.length, 10);
  const overflow = data.points.find((point) => point.attributes["otel.metric.overflow"] === true)!;
  assert.equal(overflow.count, 10_000 - 9);
  assert.equal(data.points.reduce((sum, point) => sum + point.count, 0), 10_000);
});

test("histogram: nothing recorded, nothing collected; a collection is a copy, later records do not change it", () => {
  const histogram = new Histogram("h", "d", "s");
  assert.equal(histogram.collect(), undefined);
  histogram.record(1, {});
  const first = histogram.collect()!;
  histogram.record(1, {});
  assert.equal(first.points[0]!.count, 1);
  assert.equal(histogram.collect()!.points[0]!.count, 2);
  assert.ok(first.timeUnixNano >= first.startTimeUnixNano);
});

const receivers: OtlpReceiver[] = [];
after(() => Promise.all(receivers.map((receiver) => receiver.close())));

test("metric reader: exports every interval; after a failed export the next carries the cumulative totals", async () => {
  const receiver = await startOtlpReceiver();
  receivers.push(receiver);
  const histogram = new Histogram("mcp.server.operation.duration", "d", "s");
  const told: string[] = [];
  const target = { url: `${receiver.url}/v1/metrics`, headers: {}, protocol: "http/protobuf" as const, timeoutMs: 1000 };
  const origin = { resource: { "service.name": "t" }, scope: { name: "s", version: "1" } };
  const reader = new MetricReader([histogram], target, origin, 1000, undefined, (message) => told.push(message));
  reader.start(30);
  histogram.record(0.2, { "mcp.method.name": "tools/call" });
  await receiver.waitFor(() => receiver.histograms.length >= 1);
  receiver.status = 500;
  histogram.record(0.3, { "mcp.method.name": "tools/call" });
  await receiver.waitFor(() => reader.stats.failed >= 1);
  receiver.status = 200;
  histogram.record(0.4, { "mcp.method.name": "tools/call" });
  const received = receiver.histograms.length;
  await receiver.waitFor(() => receiver.histograms.length > received + 1);
  await reader.shutdown(1000);
  const last = receiver.histograms.at(-1)!.points[0]!;
  assert.equal(last.count, 3);
  assert.ok(Math.abs(last.sum! - 0.9) < 1e-9);
  assert.equal(told.length, 1);
  assert.match(told[0]!, /a metrics export failed \(HTTP 500\)/);
  assert.deepEqual(receiver.problems, []);
});

test("metric reader: shutdown sends the totals one last time, and gives up on a collector that does not answer", async () => {
  const receiver = await startOtlpReceiver();
  receivers.push(receiver);
  const histogram = new Histogram("h", "d", "s");
  const target = { url: `${receiver.url}/v1/metrics`, headers: {}, protocol: "http/json" as const, timeoutMs: 10_000 };
  const reader = new MetricReader([histogram], target, { resource: {}, scope: { name: "s", version: "1" } }, 10_000, undefined, () => {});
  reader.start(60_000);
  histogram.record(2, {});
  assert.equal(await reader.shutdown(2000), true);
  assert.equal(receiver.histograms[0]!.points[0]!.count, 1);
  receiver.hold = true;
  const told: string[] = [];
  const again = new MetricReader([histogram], target, { resource: {}, scope: { name: "s", version: "1" } }, 10_000, undefined, (message) => told.push(message));
  const started = performance.now();
  assert.equal(await again.shutdown(150), false);
  assert.ok(performance.now() - started < 2000);
  // The exit says the totals are lost, once: no export comes after it.
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(told, ["the metrics were not sent at exit (no answer within 150 ms): the totals are lost"]);
  receiver.hold = false;
  receiver.status = 500;
  const refused: string[] = [];
  const last = new MetricReader([histogram], target, { resource: {}, scope: { name: "s", version: "1" } }, 10_000, undefined, (message) => refused.push(message));
  histogram.record(1, {});
  assert.equal(await last.shutdown(2000), false);
  assert.deepEqual(refused, ["a metrics export failed (HTTP 500): the totals are lost (the workbench is stopping)"]);
});
