/**
 * What telemetry costs, measured on synthetic calls (docs/telemetry.md "Costs"):
 *   bun scripts/telemetry-cost.ts            deno run -A --v8-flags=--expose-gc scripts/telemetry-cost.ts
 * 1. off: ns per call through NOOP_TELEMETRY (a SERVER and a CLIENT span, attributes, _meta, end)
 *    against the same loop without telemetry, and the heap it leaves (run Deno with
 *    --v8-flags=--trace-gc to count collections);
 * 2. on: ns per call with spans and histograms kept and exported to an in-process collector that
 *    only counts bytes (decoding would measure the decoder), and the spans per second it takes;
 * 3. encoding alone: a batch of 512 SERVER spans in protobuf and in JSON;
 * 4. a collector that is down (a closed port) or hangs: the heap after 200,000 calls.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import process from "node:process";
import { injectMeta, NOOP_TELEMETRY, resolveTelemetry, type Telemetry } from "../src/telemetry/index.ts";
import { createTelemetry } from "../src/telemetry/telemetry.ts";
import { startOtlpReceiver } from "../tests/helpers/otlp-receiver.ts";
import { encodeTracesJson } from "../src/telemetry/otlp-json.ts";
import { encodeTracesProto } from "../src/telemetry/otlp-proto.ts";
import type { ExportedSpan } from "../src/telemetry/span.ts";

const REQUEST = { method: "tools/call", id: 7, params: { name: "use_tool", arguments: { message: "hi" } } };
const CALL = { name: "echo", arguments: { message: "hi" } };
const PEER = { transport: "pipe", protocolVersion: "2025-11-25" } as const;
const DOWN = { transport: "pipe", toolbox: "dev", server: "everything" } as const;
const RESULT = { content: [{ type: "text", text: "hi" }] };

/** One call as the pipeline would make it: a SERVER span, a CLIENT span under it, _meta for the server, both ended. */
function call(telemetry: Telemetry): unknown {
  const server = telemetry.serverSpan(REQUEST, PEER);
  const client = telemetry.clientSpan({ method: "tools/call", id: 3, params: CALL }, server, DOWN);
  const sent = injectMeta(CALL, client);
  client.end(RESULT);
  server.end(RESULT);
  return sent;
}

/** The same loop without telemetry: what the caller does anyway. */
function bare(): unknown {
  return CALL;
}

function collect(): void {
  const bun = (globalThis as { Bun?: { gc(full: boolean): void } }).Bun;
  if (bun) bun.gc(true);
  else (globalThis as { gc?: () => void }).gc?.();
}

const heapMiB = () => process.memoryUsage().heapUsed / 1024 / 1024;

function nsPerCall(run: () => unknown, count: number): number {
  let sink: unknown;
  for (let index = 0; index < count / 10; index++) sink = run();
  const started = performance.now();
  for (let index = 0; index < count; index++) sink = run();
  const took = performance.now() - started;
  if (sink === Symbol.for("never")) console.log(sink);
  return (took * 1e6) / count;
}

function off(): void {
  const count = 10_000_000;
  collect();
  const before = heapMiB();
  const bareNs = nsPerCall(bare, count);
  const offNs = nsPerCall(() => call(NOOP_TELEMETRY), count);
  collect();
  console.log(`off: ${offNs.toFixed(1)} ns a call through NOOP_TELEMETRY, ${bareNs.toFixed(1)} ns without (${count} calls); heap ${before.toFixed(1)} -> ${heapMiB().toFixed(1)} MiB`);
}

/** A collector that answers 200 at once and counts the bytes it got. */
async function countingCollector(): Promise<{ url: string; bytes: () => number; close: () => Promise<void> }> {
  let bytes = 0;
  const server = createServer((request, response) => {
    request.on("data", (chunk: Uint8Array) => (bytes += chunk.length));
    request.on("end", () => response.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bytes: () => bytes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function on(protocol: "http/protobuf" | "http/json"): Promise<void> {
  const collector = await countingCollector();
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_PROTOCOL: protocol, OTEL_BSP_SCHEDULE_DELAY: "50" };
  const telemetry = createTelemetry(resolveTelemetry(env).settings);
  const count = 100_000;
  const started = performance.now();
  // Calls in rounds of 200 (400 spans), letting exports run between them, as a server between requests.
  for (let round = 0; round < count / 200; round++) {
    for (let index = 0; index < 200; index++) call(telemetry);
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  await telemetry.flush(60_000);
  const took = performance.now() - started;
  const stats = telemetry.stats().spans!;
  const perCall = nsPerCall(() => call(telemetry), 20_000);
  await telemetry.shutdown(60_000);
  console.log(
    `on (${protocol}): ${perCall.toFixed(0)} ns a call (2 spans) made; ${count} calls in ${(took / 1000).toFixed(2)} s: ` +
      `${Math.round(stats.exported / (took / 1000))} spans/s exported (dropped ${stats.dropped}, failed ${stats.failed}), ` +
      `${(collector.bytes() / stats.exported).toFixed(0)} bytes a span`,
  );
  await collector.close();
}

/** Encoding alone, without the network: spans per second of each encoder on batches of 512. */
async function encode(): Promise<void> {
  const spans: ExportedSpan[] = [];
  const settings = resolveTelemetry({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://127.0.0.1:9/v1/traces" }).settings;
  const telemetry = createTelemetry({ ...settings, batch: { ...settings.batch, maxQueueSize: 1 } });
  for (let index = 0; index < 512; index++) {
    const span = telemetry.serverSpan({ ...REQUEST, id: index }, PEER);
    span.end(RESULT);
    spans.push(span as ExportedSpan);
  }
  await telemetry.shutdown(0);
  const origin = { resource: { "service.name": "mcp-workbench" }, scope: { name: "mcp-workbench", version: "0" } };
  for (const [name, run] of [["protobuf", () => encodeTracesProto(spans, origin)], ["JSON", () => encodeTracesJson(spans, origin)]] as const) {
    for (let round = 0; round < 20; round++) run();
    const started = performance.now();
    for (let round = 0; round < 100; round++) run();
    const ms = (performance.now() - started) / 100;
    console.log(`encode (${name}): ${ms.toFixed(2)} ms a batch of 512 spans, ${Math.round((512 / ms) * 1000)} spans/s`);
  }
}

async function down(how: "closed" | "hanging"): Promise<void> {
  const receiver = await startOtlpReceiver();
  if (how === "closed") await receiver.close();
  else receiver.hold = true;
  const telemetry = createTelemetry(resolveTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "10" }).settings);
  collect();
  const before = heapMiB();
  let peak = before;
  for (let round = 0; round < 400; round++) {
    for (let index = 0; index < 500; index++) call(telemetry);
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (round % 50 === 49) {
      collect();
      peak = Math.max(peak, heapMiB());
    }
  }
  const stats = telemetry.stats().spans!;
  await telemetry.shutdown(1000);
  if (how === "hanging") await receiver.close();
  console.log(
    `collector ${how}: 200000 calls, heap ${before.toFixed(1)} MiB before, at most ${peak.toFixed(1)} MiB after a collection; ` +
      `queued ${stats.queued}, dropped ${stats.dropped}, failed ${stats.failed}`,
  );
}

console.log(`${"Deno" in globalThis ? "deno" : "bun"}:`);
off();
await on("http/protobuf");
await on("http/json");
await encode();
await down("closed");
await down("hanging");
