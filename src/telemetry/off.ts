/**
 * What the workbench knows of telemetry, and telemetry when it is off (NOOP_TELEMETRY): a span of
 * it is the one shared NOOP_SPAN. The rest is loaded only when it is on (open.ts).
 */
import { type Attributes, NOOP_SPAN, type Span } from "./span.ts";
import type { BatchStats } from "./batch-processor.ts";
import type { Fetch } from "./exporter.ts";
import type { McpPeer, McpRequest } from "./mcp-conventions.ts";
import type { MetricStats } from "./metric-reader.ts";

export interface TelemetryOptions {
  /** Told of export problems, once per outage (the log). */
  onProblem?: (message: string) => void;
  /** Resource attributes of the running program (the runtime's name...), under those of the settings. */
  resource?: Attributes;
  /** Tests only: another fetch. */
  fetch?: Fetch;
}

export interface TelemetryStats {
  spans?: BatchStats;
  metrics?: MetricStats;
}

export interface ServerSpanOptions {
  /** The HTTP request's headers: its `traceparent` becomes a link (the transport's context is not the MCP parent). */
  httpHeaders?: Pick<Headers, "get">;
  attributes?: Attributes;
}

export interface Telemetry {
  /** Spans are made and exported. */
  readonly tracing: boolean;
  /** Durations are measured and exported. */
  readonly metering: boolean;
  /** `"recordContent": true`: spans may carry arguments and results (Span.setContent). */
  readonly recordContent: boolean;
  /** A SERVER span for a request a client sent: its parent is `params._meta.traceparent`. */
  serverSpan(request: McpRequest, peer: McpPeer, options?: ServerSpanOptions): Span;
  /** A CLIENT span for a request to a server, under `parent` (the SERVER span, or a step's INTERNAL span). */
  clientSpan(request: McpRequest, parent: Span | undefined, peer: McpPeer): Span;
  /** An INTERNAL span for a step of the workbench's own (a toolbox opening, an approval question, a server starting). */
  internalSpan(name: string, parent: Span | undefined, attributes?: Attributes): Span;
  /** Sends what is waiting, within `timeoutMs`; true when all went in time. */
  flush(timeoutMs: number): Promise<boolean>;
  /** Flushes within `timeoutMs` and stops: for the workbench's exit. */
  shutdown(timeoutMs: number): Promise<void>;
  stats(): TelemetryStats;
}

export const NOOP_TELEMETRY: Telemetry = Object.freeze({
  tracing: false,
  metering: false,
  recordContent: false,
  serverSpan: () => NOOP_SPAN,
  clientSpan: () => NOOP_SPAN,
  internalSpan: () => NOOP_SPAN,
  flush: () => Promise.resolve(true),
  shutdown: () => Promise.resolve(),
  stats: () => ({}),
});
