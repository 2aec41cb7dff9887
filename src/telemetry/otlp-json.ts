/**
 * OTLP's JSON encoding of the same requests (the OTLP specification's JSON mapping): field names in
 * lowerCamelCase, trace and span ids as hex, 64-bit integers as decimal strings, enums as numbers.
 */
import { unixNanoOf } from "./clock.ts";
import type { HistogramData } from "./metrics.ts";
import type { Origin } from "./otlp-proto.ts";
import type { AttributeValue, Attributes, ExportedSpan } from "./span.ts";

const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;
const AGGREGATION_TEMPORALITY_CUMULATIVE = 2;

type Json = Record<string, unknown>;

export function encodeTracesJson(spans: readonly ExportedSpan[], origin: Origin): string {
  return JSON.stringify({
    resourceSpans: [{
      resource: { attributes: keyValues(origin.resource) },
      scopeSpans: [{ scope: origin.scope, spans: spans.map(spanJson) }],
    }],
  });
}

export function encodeMetricsJson(histograms: readonly HistogramData[], origin: Origin): string {
  return JSON.stringify({
    resourceMetrics: [{
      resource: { attributes: keyValues(origin.resource) },
      scopeMetrics: [{ scope: origin.scope, metrics: histograms.map(histogramJson) }],
    }],
  });
}

function spanJson(span: ExportedSpan): Json {
  return {
    traceId: span.context.traceId,
    spanId: span.context.spanId,
    ...(span.context.traceState && { traceState: span.context.traceState }),
    ...(span.parent && { parentSpanId: span.parent.spanId }),
    flags: (span.context.traceFlags & 0xff) | HAS_IS_REMOTE | (span.parent?.remote ? IS_REMOTE : 0),
    name: span.name,
    kind: span.kind,
    startTimeUnixNano: String(span.startTimeUnixNano),
    endTimeUnixNano: String(span.endTimeUnixNano),
    attributes: keyValues(span.attributes),
    ...(span.droppedAttributes > 0 && { droppedAttributesCount: span.droppedAttributes }),
    events: span.events.map((event) => ({
      timeUnixNano: String(unixNanoOf(event.timeMs)),
      name: event.name,
      attributes: keyValues(event.attributes),
    })),
    ...(span.droppedEvents > 0 && { droppedEventsCount: span.droppedEvents }),
    links: span.links.map(({ context, attributes }) => ({
      traceId: context.traceId,
      spanId: context.spanId,
      ...(context.traceState && { traceState: context.traceState }),
      attributes: keyValues(attributes),
      flags: (context.traceFlags & 0xff) | HAS_IS_REMOTE | (context.remote ? IS_REMOTE : 0),
    })),
    ...(span.droppedLinks > 0 && { droppedLinksCount: span.droppedLinks }),
    status: span.status.code === 0 ? {} : { code: span.status.code, ...(span.status.message && { message: span.status.message }) },
  };
}

function histogramJson(histogram: HistogramData): Json {
  return {
    name: histogram.name,
    description: histogram.description,
    unit: histogram.unit,
    histogram: {
      aggregationTemporality: AGGREGATION_TEMPORALITY_CUMULATIVE,
      dataPoints: histogram.points.map((point) => ({
        attributes: keyValues(point.attributes),
        startTimeUnixNano: String(histogram.startTimeUnixNano),
        timeUnixNano: String(histogram.timeUnixNano),
        count: String(point.count),
        sum: point.sum,
        bucketCounts: point.bucketCounts.map(String),
        explicitBounds: histogram.boundaries,
        ...(point.count > 0 && { min: point.min, max: point.max }),
      })),
    },
  };
}

function keyValues(attributes: Attributes): Json[] {
  const list: Json[] = [];
  for (const key in attributes) list.push({ key, value: anyValue(attributes[key]!) });
  return list;
}

function anyValue(value: AttributeValue | string | number | boolean): Json {
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  if (typeof value === "number") {
    if (Number.isSafeInteger(value)) return { intValue: String(value) };
    // JSON has no NaN or Infinity: the protobuf JSON mapping writes them as strings.
    return { doubleValue: Number.isFinite(value) ? value : String(value) };
  }
  return { arrayValue: { values: value.map(anyValue) } };
}
