/**
 * Telemetry as the workbench uses it: a SERVER span for each request a client sends, a CLIENT span
 * for each request sent to a server, INTERNAL spans for the workbench's own steps, the duration
 * histograms of both sides, and their export over OTLP. Off, it is NOOP_TELEMETRY, whose every
 * span is the one shared NOOP_SPAN: nothing is allocated, read or timed.
 */
import { BatchProcessor, type BatchStats } from "./batch-processor.ts";
import { type Fetch, postOtlp } from "./exporter.ts";
import { newSpanId, newTraceId } from "./ids.ts";
import {
  CLIENT_DURATION,
  keptRequest,
  type McpPeer,
  type McpRequest,
  METRIC_ATTRIBUTES,
  SERVER_DURATION,
  SERVER_METRIC_ATTRIBUTES,
  setPeerAttributes,
  setRequestAttributes,
  spanName,
  targetOf,
} from "./mcp-conventions.ts";
import { extractHeaders, extractMeta } from "./meta-context.ts";
import { MetricReader, type MetricStats } from "./metric-reader.ts";
import { Histogram } from "./metrics.ts";
import { encodeTracesJson } from "./otlp-json.ts";
import { encodeTracesProto, type Origin } from "./otlp-proto.ts";
import type { Sampler } from "./sampler-settings.ts";
import { shownUrl, type TelemetrySettings } from "./settings.ts";
import { sampledFlags } from "./sampler.ts";
import {
  type Attributes,
  type ExportedSpan,
  NOOP_SPAN,
  type Operation,
  RecordingSpan,
  type Span,
  SpanKind,
  type SpanOwner,
  cut,
} from "./span.ts";
import type { TraceContext } from "./trace-context.ts";
import { VERSION } from "../protocol/version.ts";
import { NOOP_TELEMETRY, type ServerSpanOptions, type Telemetry, type TelemetryOptions, type TelemetryStats } from "./off.ts";



/** Ended spans recorded together: a burst this size costs one call a few hundred microseconds, no more. */
const PENDING_SPANS = 256;
/** The longest an ended span waits to be recorded when few are ended (a span's export waits seconds anyway). */
const DRAIN_AFTER_MS = 200;

/** Telemetry for `settings`: NOOP_TELEMETRY when neither traces nor metrics have an endpoint. */
export function createTelemetry(settings: TelemetrySettings, options: TelemetryOptions = {}): Telemetry {
  if (!settings.traces && !settings.metrics) return NOOP_TELEMETRY;
  return new ActiveTelemetry(settings, options);
}

class ActiveTelemetry implements Telemetry {
  readonly tracing: boolean;
  readonly metering: boolean;
  readonly recordContent: boolean;
  readonly #owner: SpanOwner;
  readonly #processor?: BatchProcessor<ExportedSpan>;
  readonly #reader?: MetricReader;
  readonly #durations?: Record<Operation, Histogram>;
  readonly #sampler: Sampler;

  constructor(settings: TelemetrySettings, options: TelemetryOptions) {
    const origin: Origin = { resource: { ...options.resource, ...settings.resource }, scope: { name: "mcp-workbench", version: VERSION } };
    const tell = options.onProblem ?? (() => {});
    this.tracing = settings.traces !== undefined;
    this.metering = settings.metrics !== undefined;
    this.recordContent = this.tracing && settings.recordContent;
    this.#sampler = settings.sampler;
    this.#owner = {
      limits: settings.limits,
      recordContent: this.recordContent,
      ended: (span) => this.#ended(span),
      child: (name, parent, attributes) => this.internalSpan(name, parent, attributes),
    };
    const traces = settings.traces;
    if (traces) {
      const where = `Telemetry: traces to ${shownUrl(traces.url)}: `;
      this.#processor = new BatchProcessor<ExportedSpan>(settings.batch, (spans, timeoutMs, signal) => {
        const body = traces.protocol === "http/json" ? encodeTracesJson(spans, origin) : encodeTracesProto(spans, origin);
        return postOtlp(traces, body, timeoutMs, signal, options.fetch);
      }, (message) => tell(where + message));
    }
    if (settings.metrics) {
      this.#durations = {
        server: new Histogram(SERVER_DURATION, "MCP request or notification duration as observed on the receiver", "s"),
        client: new Histogram(CLIENT_DURATION, "The duration of the MCP request or notification as observed on the sender", "s"),
      };
      const where = `Telemetry: metrics to ${shownUrl(settings.metrics.url)}: `;
      // A collection counts every span ended before it.
      const histograms = Object.values(this.#durations).map((histogram) => ({ collect: () => (this.#drain(), histogram.collect()) }));
      const onProblem = (message: string) => tell(where + message);
      this.#reader = new MetricReader(histograms, settings.metrics, origin, settings.metricTimeoutMs, options.fetch, onProblem);
      this.#reader.start(settings.metricIntervalMs);
    }
  }

  serverSpan(request: McpRequest, peer: McpPeer, options?: ServerSpanOptions): Span {
    const params = request.params as { _meta?: unknown } | undefined;
    const { parent, baggage } = extractMeta(typeof params === "object" && params !== null ? params._meta : undefined);
    const extra = options?.attributes;
    const kept = keptRequest(request);
    const span = this.#start(spanName(request.method, targetOf(request)), SpanKind.SERVER, parent, baggage, "server", (span) => {
      setRequestAttributes(span, kept);
      setPeerAttributes(span, peer);
      if (extra) for (const [key, value] of Object.entries(extra)) span.setAttribute(key, value);
    });
    const link = this.tracing && options?.httpHeaders ? extractHeaders(options.httpHeaders).parent : undefined;
    if (link) span.addLink(link);
    return span;
  }

  clientSpan(request: McpRequest, parent: Span | undefined, peer: McpPeer): Span {
    const kept = keptRequest(request);
    return this.#start(spanName(request.method, targetOf(request)), SpanKind.CLIENT, parent?.context, parent?.baggage, "client", (span) => {
      setRequestAttributes(span, kept);
      setPeerAttributes(span, peer);
    });
  }

  internalSpan(name: string, parent: Span | undefined, attributes?: Attributes): Span {
    // A step of our own has no histogram: without traces it is nothing.
    if (!this.tracing) return NOOP_SPAN;
    const span = this.#start(name, SpanKind.INTERNAL, parent?.context, parent?.baggage);
    if (attributes) for (const [key, value] of Object.entries(attributes)) span.setAttribute(key, value);
    return span;
  }

  #start(
    name: string,
    kind: SpanKind,
    parent: TraceContext | undefined,
    baggage?: string,
    operation?: Operation,
    describe?: (span: RecordingSpan) => void,
  ): RecordingSpan {
    // A name is made of what a request says: bounded as an attribute is.
    name = cut(name, this.#owner.limits.attributeValueLength);
    if (!this.tracing) return new RecordingSpan(this.#owner, name, kind, undefined, undefined, baggage, operation, describe);
    // The sampler decides (by default parent-based, always on: a new trace is sampled, a child
    // follows its parent's decision).
    const traceId = parent ? parent.traceId : newTraceId();
    const traceFlags = sampledFlags(this.#sampler, traceId, parent);
    const context: TraceContext = parent?.traceState
      ? { traceId, spanId: newSpanId(), traceFlags, traceState: parent.traceState }
      : { traceId, spanId: newSpanId(), traceFlags };
    return new RecordingSpan(this.#owner, name, kind, context, parent, baggage, operation, describe);
  }

  /**
   * Spans ended and not yet recorded: their histogram points and their place in the export queue
   * are made off the call's path, a batch at a time, after the answers are written (a timer), when
   * a batch is full, and before any collection, flush or count. Never more than PENDING_SPANS.
   */
  #pending: RecordingSpan[] = [];
  #draining: ReturnType<typeof setTimeout> | undefined;

  #ended(span: RecordingSpan): void {
    const pending = this.#pending;
    pending.push(span);
    if (pending.length >= PENDING_SPANS) this.#drain();
    else if (this.#draining === undefined) this.#draining = setTimeout(() => this.#drain(), DRAIN_AFTER_MS);
  }

  #drain(): void {
    clearTimeout(this.#draining);
    this.#draining = undefined;
    const spans = this.#pending;
    if (spans.length === 0) return;
    this.#pending = [];
    for (const span of spans) this.#record(span);
  }

  #record(span: RecordingSpan): void {
    if (span.operation && this.#durations) {
      const names = span.operation === "server" ? SERVER_METRIC_ATTRIBUTES : METRIC_ATTRIBUTES;
      this.#durations[span.operation].recordOf(span.durationSeconds, span.attributes, names);
    }
    if (span.sampled) this.#processor?.add(span as ExportedSpan);
  }

  async flush(timeoutMs: number): Promise<boolean> {
    this.#drain();
    const [spans, metrics] = await Promise.all([this.#processor?.flush(timeoutMs) ?? true, this.#reader?.flush(timeoutMs) ?? true]);
    return spans && metrics;
  }

  async shutdown(timeoutMs: number): Promise<void> {
    this.#drain();
    await Promise.all([this.#processor?.shutdown(timeoutMs), this.#reader?.shutdown(timeoutMs)]);
  }

  stats(): TelemetryStats {
    this.#drain();
    return {
      ...(this.#processor && { spans: this.#processor.stats }),
      ...(this.#reader && { metrics: this.#reader.stats }),
    };
  }
}
