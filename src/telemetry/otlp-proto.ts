/**
 * OTLP's protobuf messages, written by hand: ExportTraceServiceRequest and
 * ExportMetricsServiceRequest (opentelemetry-proto, collector/trace/v1 and collector/metrics/v1),
 * with the field numbers of trace.proto, metrics.proto, common.proto and resource.proto.
 */
import type { HistogramData } from "./metrics.ts";
import { unixNanoOf } from "./clock.ts";
import { ProtoWriter } from "./protobuf-writer.ts";
import type { AttributeValue, Attributes, ExportedSpan, SpanEvent, SpanLink } from "./span.ts";
import type { TraceContext } from "./trace-context.ts";

/** What every request says of its source: the resource (service.name...) and the instrumentation scope. */
export interface Origin {
  readonly resource: Attributes;
  readonly scope: { readonly name: string; readonly version: string };
}

/** Span.flags and Link.flags: the W3C flags, and whether the parent (or linked) context is remote. */
const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;
const AGGREGATION_TEMPORALITY_CUMULATIVE = 2;

/** One writer for spans, one for metrics, each used again: an export's request is written whole before the next begins. */
const TRACES = new ProtoWriter();
const METRICS = new ProtoWriter();

export function encodeTracesProto(spans: readonly ExportedSpan[], origin: Origin): Uint8Array {
  const writer = TRACES.reset();
  const resourceSpans = writer.fork(1);
  writeResource(writer, origin.resource);
  const scopeSpans = writer.fork(2);
  writeScope(writer, origin.scope);
  for (const span of spans) writeSpan(writer, span);
  writer.join(scopeSpans);
  writer.join(resourceSpans);
  return writer.finish();
}

export function encodeMetricsProto(histograms: readonly HistogramData[], origin: Origin): Uint8Array {
  const writer = METRICS.reset();
  const resourceMetrics = writer.fork(1);
  writeResource(writer, origin.resource);
  const scopeMetrics = writer.fork(2);
  writeScope(writer, origin.scope);
  for (const histogram of histograms) writeHistogram(writer, histogram);
  writer.join(scopeMetrics);
  writer.join(resourceMetrics);
  return writer.finish();
}

function writeResource(writer: ProtoWriter, resource: Attributes): void {
  const start = writer.fork(1);
  writeAttributes(writer, 1, resource);
  writer.join(start);
}

function writeScope(writer: ProtoWriter, scope: Origin["scope"]): void {
  const start = writer.fork(1);
  writer.string(1, scope.name).string(2, scope.version);
  writer.join(start);
}

function writeSpan(writer: ProtoWriter, span: ExportedSpan): void {
  const start = writer.fork(2);
  writer.hexBytes(1, span.context.traceId).hexBytes(2, span.context.spanId);
  if (span.context.traceState) writer.string(3, span.context.traceState);
  if (span.parent) writer.hexBytes(4, span.parent.spanId);
  writer.string(5, span.name).uint(6, span.kind);
  writer.fixed64(7, span.startTimeUnixNano).fixed64(8, span.endTimeUnixNano);
  writeAttributes(writer, 9, span.attributes);
  if (span.droppedAttributes > 0) writer.uint(10, span.droppedAttributes);
  for (const event of span.events) writeEvent(writer, event);
  if (span.droppedEvents > 0) writer.uint(12, span.droppedEvents);
  for (const link of span.links) writeLink(writer, link);
  if (span.droppedLinks > 0) writer.uint(14, span.droppedLinks);
  if (span.status.code !== 0) {
    const status = writer.fork(15);
    if (span.status.message) writer.string(2, span.status.message);
    writer.uint(3, span.status.code);
    writer.join(status);
  }
  writer.fixed32(16, flagsOf(span.context, span.parent?.remote === true));
  writer.join(start);
}

function flagsOf(context: TraceContext, remote: boolean): number {
  return (context.traceFlags & 0xff) | HAS_IS_REMOTE | (remote ? IS_REMOTE : 0);
}

function writeEvent(writer: ProtoWriter, event: SpanEvent): void {
  const start = writer.fork(11);
  writer.fixed64(1, unixNanoOf(event.timeMs)).string(2, event.name);
  writeAttributes(writer, 3, event.attributes);
  writer.join(start);
}

function writeLink(writer: ProtoWriter, link: SpanLink): void {
  const start = writer.fork(13);
  writer.hexBytes(1, link.context.traceId).hexBytes(2, link.context.spanId);
  if (link.context.traceState) writer.string(3, link.context.traceState);
  writeAttributes(writer, 4, link.attributes);
  writer.fixed32(6, flagsOf(link.context, link.context.remote === true));
  writer.join(start);
}

function writeHistogram(writer: ProtoWriter, histogram: HistogramData): void {
  const metric = writer.fork(2);
  writer.string(1, histogram.name).string(2, histogram.description).string(3, histogram.unit);
  const data = writer.fork(9);
  for (const point of histogram.points) {
    const start = writer.fork(1);
    writer.fixed64(2, histogram.startTimeUnixNano).fixed64(3, histogram.timeUnixNano);
    writer.fixed64(4, BigInt(point.count)).double(5, point.sum);
    writer.packedFixed64(6, point.bucketCounts).packedDouble(7, histogram.boundaries);
    writeAttributes(writer, 9, point.attributes);
    if (point.count > 0) writer.double(11, point.min).double(12, point.max);
    writer.join(start);
  }
  writer.uint(2, AGGREGATION_TEMPORALITY_CUMULATIVE);
  writer.join(data);
  writer.join(metric);
}

/** `repeated KeyValue` at `field`. */
function writeAttributes(writer: ProtoWriter, field: number, attributes: Attributes): void {
  for (const key in attributes) {
    const start = writer.fork(field);
    writer.key(key);
    writeAnyValue(writer, 2, attributes[key]!);
    writer.join(start);
  }
}

function writeAnyValue(writer: ProtoWriter, field: number, value: AttributeValue | string | number | boolean): void {
  const start = writer.fork(field);
  if (typeof value === "string") writer.string(1, value);
  else if (typeof value === "boolean") writer.bool(2, value);
  else if (typeof value === "number") {
    if (Number.isSafeInteger(value)) writer.int64(3, value);
    else writer.double(4, value);
  } else {
    const array = writer.fork(5);
    for (const item of value) writeAnyValue(writer, 1, item);
    writer.join(array);
  }
  writer.join(start);
}
