/**
 * Telemetry: OpenTelemetry traces and metrics of every MCP request in and out, in the GenAI MCP
 * semantic conventions, exported over OTLP/HTTP (protobuf or JSON) with an encoder of our own
 * (docs/telemetry.md). Imports web-standard APIs and protocol/ only. What the rest of the workbench uses:
 */
export { openTelemetry } from "./open.ts";
export { NOOP_TELEMETRY, type ServerSpanOptions, type Telemetry, type TelemetryOptions, type TelemetryStats } from "./off.ts";
export { type Environment, resolveTelemetry, type TelemetryFileSettings, type TelemetrySettings, telemetryTargets } from "./settings.ts";
export { type Attributes, type AttributeValue, cut, NOOP_SPAN, type Span, SpanKind, StatusCode } from "./span.ts";
export { extractHeaders, extractMeta, injectMeta, type Propagated, traceHeaders, type WithMeta } from "./meta-context.ts";
export { formatTraceparent, parseTraceparent, parseTracestate, type TraceContext } from "./trace-context.ts";
export * from "./mcp-conventions.ts";
export type { OtlpProtocol } from "./exporter.ts";
