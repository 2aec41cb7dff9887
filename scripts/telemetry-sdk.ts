/**
 * The library choice of issue 50, measured: the workbench's own spans and OTLP encoder against the
 * official OpenTelemetry JavaScript SDK doing the same work (docs/telemetry.md, "Why an encoder of
 * our own"). The SDK is not a dependency of the product; install it beside, then run:
 *   npm install --prefix DIR @opentelemetry/api@1.9.1 @opentelemetry/sdk-trace-base@2.12.1 \
 *     @opentelemetry/exporter-trace-otlp-proto@0.223.1 @opentelemetry/core@2.12.1 @opentelemetry/resources@2.12.1
 *   taskset -c 1 bun scripts/telemetry-sdk.ts --sdk DIR [--calls 100000] [--rounds 5] [--collector-core 0]
 * Each call is what a traced use_tool makes: a SERVER span, a CLIENT span under it with the MCP
 * conventions' attributes, the CLIENT span's `traceparent` for the server's `_meta`, both ended;
 * exported in protobuf to a collector in a process of its own that counts bytes. Traces only (no
 * metrics). The sides take turns, each round a fresh tracer; the script prints each side's ns per
 * call (the whole loop, the export included) and the median of the rounds.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import process from "node:process";
import { injectMeta, resolveTelemetry, type Telemetry } from "../src/telemetry/index.ts";
import { createTelemetry } from "../src/telemetry/telemetry.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback?: string): string | undefined => {
  const at = args.indexOf(`--${name}`);
  return at < 0 ? fallback : args[at + 1];
};
if (args.includes("--collect")) {
  collect();
  await new Promise(() => {});
}
const sdkDir = option("sdk");
if (sdkDir === undefined) {
  console.error("Usage: bun scripts/telemetry-sdk.ts --sdk DIR (a folder where the SDK is installed: see the header)");
  process.exit(2);
}
const CALLS = Number(option("calls", "100000"));
const ROUNDS = Number(option("rounds", "5"));
/**
 * Both queues hold every span of a round: a dropped span is one not encoded, and the side that
 * drops more would look cheaper.
 */
const QUEUE = 2 * CALLS;
/** Calls between two turns of the event loop, as a server answers requests between reads. */
const BURST = 200;

const REQUEST = { method: "tools/call", id: 7, params: { name: "use_tool", arguments: { message: "hi" } } };
const CALL = { name: "echo", arguments: { message: "hi" } };
const PEER = { transport: "pipe", protocolVersion: "2025-11-25" } as const;
const DOWN = { transport: "pipe", toolbox: "dev", server: "everything" } as const;
const RESULT = { content: [{ type: "text", text: "hi" }] };

/**
 * A collector in a process of its own (this script with `--collect`), as in life: its share of the
 * CPU is not the exporter's. It answers 200 at once and counts the bytes it got.
 */
function collect(): void {
  let bytes = 0;
  const server = createServer((request, response) => {
    request.on("data", (chunk: Uint8Array) => (bytes += chunk.length));
    request.on("end", () => response.end());
  });
  server.listen(0, "127.0.0.1", () => console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  process.stdin.on("data", () => {}).on("end", () => {
    console.log(String(bytes));
    process.exit(0);
  });
}

async function startCollector(): Promise<{ url: string; close: () => Promise<number> }> {
  const command = [process.execPath, fileURLToPath(import.meta.url), "--collect"];
  // `--collector-core N`: the collector on a core of its own when this script is pinned (taskset -c).
  const core = option("collector-core");
  if (core !== undefined) command.unshift("taskset", "-c", core);
  const child = spawn(command[0]!, command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
  const lines: string[] = [];
  let told: () => void = () => {};
  child.stdout.setEncoding("utf8").on("data", (text: string) => {
    lines.push(...text.split("\n").filter((line) => line !== ""));
    told();
  });
  const line = (index: number) => new Promise<string>((resolve) => {
    const check = () => (lines.length > index ? resolve(lines[index]!) : (told = check));
    check();
  });
  const url = await line(0);
  return {
    url,
    close: async () => {
      child.stdin.end();
      return Number(await line(1));
    },
  };
}

interface Side {
  name: string;
  /** One traced call; returns what would be sent to the server. */
  call(): unknown;
  /** Everything queued sent; the spans the exporter was handed. */
  finish(): Promise<number>;
}

function ours(url: string): Side {
  const env = {
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${url}/v1/traces`,
    OTEL_METRICS_EXPORTER: "none",
    OTEL_BSP_MAX_QUEUE_SIZE: String(QUEUE),
  };
  const telemetry: Telemetry = createTelemetry(resolveTelemetry(env).settings);
  return {
    name: "workbench",
    call() {
      const server = telemetry.serverSpan(REQUEST, PEER);
      const client = telemetry.clientSpan({ method: "tools/call", id: 3, params: CALL }, server, DOWN);
      const sent = injectMeta(CALL, client);
      client.end(RESULT);
      server.end(RESULT);
      return sent;
    },
    async finish() {
      await telemetry.flush(60_000);
      const exported = telemetry.stats().spans?.exported ?? 0;
      await telemetry.shutdown(60_000);
      return exported;
    },
  };
}

/** What the workbench's spans carry for the same call (mcp-conventions.ts), given to the SDK's at their start. */
const SERVER_ATTRIBUTES = {
  "mcp.method.name": "tools/call",
  "gen_ai.tool.name": "use_tool",
  "gen_ai.operation.name": "execute_tool",
  "jsonrpc.request.id": "7",
  "network.transport": "pipe",
  "mcp.protocol.version": "2025-11-25",
};
const CLIENT_ATTRIBUTES = {
  "mcp.method.name": "tools/call",
  "gen_ai.tool.name": "echo",
  "gen_ai.operation.name": "execute_tool",
  "jsonrpc.request.id": "3",
  "network.transport": "pipe",
  "mcp_workbench.toolbox": "dev",
  "mcp_workbench.server": "everything",
};

// deno-lint-ignore no-explicit-any
type Module = any;

function official(url: string, load: (name: string) => Module): Side {
  const api = load("@opentelemetry/api");
  const base = load("@opentelemetry/sdk-trace-base");
  const { OTLPTraceExporter } = load("@opentelemetry/exporter-trace-otlp-proto");
  const { W3CTraceContextPropagator } = load("@opentelemetry/core");
  const { resourceFromAttributes } = load("@opentelemetry/resources");
  let exported = 0;
  const exporter = new OTLPTraceExporter({ url: `${url}/v1/traces` });
  const send = exporter.export.bind(exporter);
  exporter.export = (spans: unknown[], done: (result: unknown) => void) => {
    exported += spans.length;
    send(spans, done);
  };
  // The workbench's batch settings: OTEL_BSP_* defaults but for the queue (QUEUE).
  const processor = new base.BatchSpanProcessor(exporter, { maxQueueSize: QUEUE, maxExportBatchSize: 512, scheduledDelayMillis: 5000 });
  const provider = new base.BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": "mcp-workbench" }),
    spanProcessors: [processor],
  });
  const tracer = provider.getTracer("mcp-workbench", "0");
  const propagator = new W3CTraceContextPropagator();
  const root = api.ROOT_CONTEXT;
  const { SERVER, CLIENT } = api.SpanKind;
  return {
    name: "official SDK",
    call() {
      const server = tracer.startSpan("tools/call use_tool", { kind: SERVER, attributes: SERVER_ATTRIBUTES }, root);
      const client = tracer.startSpan("tools/call echo", { kind: CLIENT, attributes: CLIENT_ATTRIBUTES }, api.trace.setSpan(root, server));
      const meta: Record<string, string> = {};
      propagator.inject(api.trace.setSpan(root, client), meta, api.defaultTextMapSetter);
      const sent = { ...CALL, _meta: meta };
      client.end();
      server.end();
      return sent;
    },
    async finish() {
      await provider.forceFlush();
      await provider.shutdown();
      return exported;
    },
  };
}

async function round(side: Side): Promise<number> {
  let sink: unknown;
  const started = performance.now();
  for (let burst = 0; burst < CALLS / BURST; burst++) {
    for (let index = 0; index < BURST; index++) sink = side.call();
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  const exported = await side.finish();
  const ns = ((performance.now() - started) * 1e6) / CALLS;
  if (sink === Symbol.for("never")) console.log(sink);
  if (exported !== 2 * CALLS) console.log(`  (${side.name}: ${exported} spans exported of ${2 * CALLS})`);
  return ns;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const require = createRequire(`${sdkDir}/package.json`);
const collector = await startCollector();
const figures = new Map<string, number[]>();
for (let index = 0; index < ROUNDS; index++) {
  // Turns alternate which side goes first, so neither always meets the warmer process.
  const sides = [ours(collector.url), official(collector.url, require)];
  if (index % 2 === 1) sides.reverse();
  for (const side of sides) {
    const ns = await round(side);
    figures.set(side.name, [...(figures.get(side.name) ?? []), ns]);
    console.log(`round ${index + 1}, ${side.name}: ${ns.toFixed(0)} ns a call`);
  }
}
const bytesNote = `${((await collector.close()) / 1e6).toFixed(1)} MB received in all`;
console.log(`${"Deno" in globalThis ? "deno" : "bun"}, ${CALLS} calls a round (2 spans each), ${bytesNote}; median ns a call:`);
for (const [name, values] of figures) console.log(`  ${name}: ${median(values).toFixed(0)} (rounds: ${values.map((v) => v.toFixed(0)).join(", ")})`);
