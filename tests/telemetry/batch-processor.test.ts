/**
 * The batch processor: a bounded queue that drops and counts when the collector is slow or down,
 * batches of the configured size, the schedule delay, and flush and shutdown within their deadlines.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { BatchProcessor, type BatchSettings } from "../../src/telemetry/batch-processor.ts";
import type { ExportOutcome } from "../../src/telemetry/exporter.ts";
import { resolveTelemetry } from "../../src/telemetry/index.ts";
import { createTelemetry } from "../../src/telemetry/telemetry.ts";
import { type OtlpReceiver, startOtlpReceiver } from "../helpers/otlp-receiver.ts";

const SLOW: BatchSettings = { scheduleDelayMs: 60_000, maxQueueSize: 5, maxExportBatchSize: 5, exportTimeoutMs: 60_000 };

/** An export that waits until released (or aborted), and records each batch. */
function heldExport(outcome: ExportOutcome = { ok: true }) {
  const batches: number[][] = [];
  const waiting: (() => void)[] = [];
  const exportBatch = (items: number[], _timeoutMs: number, signal: AbortSignal) => {
    batches.push(items);
    return new Promise<ExportOutcome>((resolve) => {
      waiting.push(() => resolve(outcome));
      signal.addEventListener("abort", () => resolve({ ok: false, reason: "aborted" }));
    });
  };
  const release = async () => {
    waiting.splice(0).forEach((go) => go());
    await new Promise((resolve) => setTimeout(resolve, 5));
  };
  return { batches, exportBatch, release };
}

test("batch: with the collector busy, spans past the queue's bound are dropped and counted; adding never waits", async () => {
  const held = heldExport();
  const processor = new BatchProcessor<number>(SLOW, held.exportBatch);
  for (let item = 0; item < 5; item++) processor.add(item);
  assert.deepEqual(held.batches, [], "a full batch is not encoded nor sent inside the call that filled it");
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.deepEqual(held.batches, [[0, 1, 2, 3, 4]], "a full batch goes at once, on a task of its own");
  for (let item = 5; item < 12; item++) processor.add(item);
  assert.deepEqual(processor.stats, { queued: 5, exported: 0, dropped: 2, failed: 0 });
  await held.release();
  assert.deepEqual(held.batches, [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]], "the next full batch goes when the first is done");
  await held.release();
  assert.deepEqual(processor.stats, { queued: 0, exported: 10, dropped: 2, failed: 0 });
  await processor.shutdown(100);
});

test("batch: a failed export counts its spans as failed and is told once an outage, again after a success", async () => {
  const told: string[] = [];
  let answer: ExportOutcome = { ok: false, reason: "HTTP 503" };
  const processor = new BatchProcessor<number>({ ...SLOW, maxExportBatchSize: 1 }, async () => answer, (message) => told.push(message));
  processor.add(1);
  processor.add(2);
  await processor.flush(1000);
  assert.deepEqual(processor.stats, { queued: 0, exported: 0, dropped: 0, failed: 2 });
  assert.deepEqual(told, ["an export failed (HTTP 503): its 1 spans are lost"]);
  answer = { ok: true };
  processor.add(3);
  await processor.flush(1000);
  answer = { ok: false, reason: "HTTP 500" };
  processor.add(4);
  await processor.flush(1000);
  assert.equal(told.length, 2);
  assert.match(told[1]!, /HTTP 500/);
  await processor.shutdown(100);
});

test("batch: a span alone goes after the schedule delay", async () => {
  const held = heldExport();
  const processor = new BatchProcessor<number>({ ...SLOW, scheduleDelayMs: 20 }, held.exportBatch);
  processor.add(1);
  assert.deepEqual(held.batches, []);
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.deepEqual(held.batches, [[1]]);
  await held.release();
  await processor.shutdown(100);
});

test("batch: flush sends everything, a batch at a time, in batches of the configured size", async () => {
  const sizes: number[] = [];
  let running = 0;
  const processor = new BatchProcessor<number>({ ...SLOW, maxQueueSize: 100, maxExportBatchSize: 3 }, async (items) => {
    assert.equal(running++, 0, "one export at a time");
    sizes.push(items.length);
    await new Promise((resolve) => setTimeout(resolve, 2));
    running--;
    return { ok: true };
  });
  for (let item = 0; item < 10; item++) processor.add(item);
  assert.equal(await processor.flush(5000), true);
  assert.deepEqual(sizes, [3, 3, 3, 1]);
  assert.equal(processor.stats.exported, 10);
  await processor.shutdown(100);
});

test("batch: with the collector hanging, flush gives up at its deadline and shutdown counts what is left as dropped", async () => {
  const held = heldExport();
  const told: string[] = [];
  const processor = new BatchProcessor<number>({ ...SLOW, maxQueueSize: 10, maxExportBatchSize: 2 }, held.exportBatch, (message) => told.push(message));
  for (let item = 0; item < 5; item++) processor.add(item);
  const started = performance.now();
  assert.equal(await processor.flush(100), false);
  await processor.shutdown(100);
  const took = performance.now() - started;
  assert.ok(took < 2000, `flush and shutdown took ${took} ms`);
  // The batch being sent was aborted (failed); the three still queued were never sent (dropped).
  assert.deepEqual(processor.stats, { queued: 0, exported: 0, dropped: 3, failed: 2 });
  // The exit says what the collector missed, once, however it went before.
  assert.deepEqual(told, ["5 spans not sent at exit (the collector did not take them within 100 ms): lost"]);
  processor.add(9);
  assert.equal(processor.stats.dropped, 4, "after shutdown nothing is taken");
});

const receivers: OtlpReceiver[] = [];
after(() => Promise.all(receivers.map((receiver) => receiver.close())));

function spansTo(url: string, env: Record<string, string> = {}) {
  const told: string[] = [];
  const { settings } = resolveTelemetry({
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${url}/v1/traces`,
    OTEL_BSP_MAX_QUEUE_SIZE: "100",
    OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "10",
    OTEL_BSP_SCHEDULE_DELAY: "1",
    OTEL_EXPORTER_OTLP_TIMEOUT: "300",
    ...env,
  });
  return { telemetry: createTelemetry(settings, { onProblem: (message) => told.push(message) }), told };
}

function calls(telemetry: ReturnType<typeof createTelemetry>, count: number): void {
  for (let index = 0; index < count; index++) {
    telemetry.serverSpan({ method: "tools/call", id: index, params: { name: "echo" } }, { transport: "pipe" }).end();
  }
}

test("batch: a collector that takes requests and never answers holds at most the queue's bound; exit is not held", async () => {
  const receiver = await startOtlpReceiver();
  receivers.push(receiver);
  receiver.hold = true;
  const { telemetry, told } = spansTo(receiver.url);
  calls(telemetry, 10_000);
  const stats = telemetry.stats().spans!;
  assert.deepEqual([stats.queued, stats.dropped], [100, 9900], "the queue is full, the rest dropped");
  const started = performance.now();
  await telemetry.shutdown(500);
  assert.ok(performance.now() - started < 3000);
  assert.equal(telemetry.stats().spans!.exported, 0);
  assert.match(told[0]!, /^Telemetry: traces to http:\/\/127\.0\.0\.1:\d+\/v1\/traces: the queue is full \(100\)/);
  assert.match(told.at(-1)!, /: \d+ spans not sent at exit \(the collector did not take them within 500 ms\): lost$/);
});

test("batch: a collector that is down: exports fail fast, are counted, and said once", async () => {
  const receiver = await startOtlpReceiver();
  const url = receiver.url;
  await receiver.close();
  const { telemetry, told } = spansTo(url);
  calls(telemetry, 25);
  await telemetry.flush(3000);
  const stats = telemetry.stats().spans!;
  assert.equal(stats.failed + stats.dropped, 25);
  assert.equal(stats.exported, 0);
  assert.equal(told.length, 1, told.join("\n"));
  assert.match(told[0]!, /an export failed/);
  await telemetry.shutdown(100);
});

test("batch: a collector that answers 503 costs the spans of that export, counted as failed", async () => {
  const receiver = await startOtlpReceiver();
  receivers.push(receiver);
  receiver.status = 503;
  const { telemetry, told } = spansTo(receiver.url);
  calls(telemetry, 10);
  await telemetry.shutdown(3000);
  assert.deepEqual(telemetry.stats().spans, { queued: 0, exported: 0, dropped: 0, failed: 10 });
  assert.match(told[0]!, /an export failed \(HTTP 503\)/);
});
