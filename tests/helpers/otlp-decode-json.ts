/**
 * Decodes OTLP/JSON export requests into the same form as the protobuf ones (otlp-decode.ts),
 * strictly: ids must be hex, 64-bit integers decimal strings, enums numbers (the OTLP JSON
 * mapping); anything else throws, so that a test sees the encoder stray from it.
 */
import type { ReceivedHistogram, ReceivedPoint, ReceivedSpan, Value } from "./otlp-decode.ts";

type Json = Record<string, unknown>;

const list = (value: unknown): Json[] => (value === undefined ? [] : (value as Json[]));

function int64(value: unknown, what: string): bigint {
  if (typeof value !== "string" || !/^-?\d+$/.test(value)) throw new Error(`${what} is not a decimal string: ${JSON.stringify(value)}`);
  return BigInt(value);
}

function enumNumber(value: unknown, what: string): number {
  if (value === undefined) return 0;
  if (typeof value !== "number" || !Number.isInteger(value)) throw new Error(`${what} is not an integer: ${JSON.stringify(value)}`);
  return value;
}

function hexId(value: unknown, bytes: number, what: string): string {
  if (typeof value !== "string" || !new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`).test(value)) {
    throw new Error(`${what} is not ${bytes} bytes of hex: ${JSON.stringify(value)}`);
  }
  return value.toLowerCase();
}

function anyValue(value: Json): Value {
  if ("stringValue" in value) return value.stringValue as string;
  if ("boolValue" in value) return value.boolValue as boolean;
  if ("intValue" in value) return Number(int64(value.intValue, "intValue"));
  if ("doubleValue" in value) return Number(value.doubleValue);
  if ("arrayValue" in value) return list((value.arrayValue as Json).values).map(anyValue);
  throw new Error(`AnyValue ${JSON.stringify(value)}`);
}

function keyValues(value: unknown): Record<string, Value> {
  return Object.fromEntries(list(value).map((kv) => [kv.key as string, anyValue(kv.value as Json)]));
}

function scopeOf(value: unknown): { name: string; version: string } {
  const scope = (value ?? {}) as Json;
  return { name: (scope.name as string | undefined) ?? "", version: (scope.version as string | undefined) ?? "" };
}

export function decodeTracesJson(text: string): ReceivedSpan[] {
  const request = JSON.parse(text) as Json;
  return list(request.resourceSpans).flatMap((resourceSpans) => {
    const resource = keyValues((resourceSpans.resource as Json | undefined)?.attributes);
    return list(resourceSpans.scopeSpans).flatMap((scopeSpans) => {
      const scope = scopeOf(scopeSpans.scope);
      return list(scopeSpans.spans).map((span) => spanOf(span, resource, scope));
    });
  });
}

function spanOf(span: Json, resource: Record<string, Value>, scope: { name: string; version: string }): ReceivedSpan {
  const status = (span.status ?? {}) as Json;
  return {
    traceId: hexId(span.traceId, 16, "traceId"),
    spanId: hexId(span.spanId, 8, "spanId"),
    ...(span.parentSpanId !== undefined && span.parentSpanId !== "" && { parentSpanId: hexId(span.parentSpanId, 8, "parentSpanId") }),
    ...(typeof span.traceState === "string" && span.traceState !== "" && { traceState: span.traceState }),
    flags: enumNumber(span.flags, "flags"),
    name: span.name as string,
    kind: enumNumber(span.kind, "kind"),
    startTimeUnixNano: int64(span.startTimeUnixNano, "startTimeUnixNano"),
    endTimeUnixNano: int64(span.endTimeUnixNano, "endTimeUnixNano"),
    attributes: keyValues(span.attributes),
    droppedAttributesCount: enumNumber(span.droppedAttributesCount, "droppedAttributesCount"),
    events: list(span.events).map((event) => ({
      timeUnixNano: int64(event.timeUnixNano, "event timeUnixNano"),
      name: event.name as string,
      attributes: keyValues(event.attributes),
    })),
    droppedEventsCount: enumNumber(span.droppedEventsCount, "droppedEventsCount"),
    links: list(span.links).map((link) => ({
      traceId: hexId(link.traceId, 16, "link traceId"),
      spanId: hexId(link.spanId, 8, "link spanId"),
      ...(typeof link.traceState === "string" && link.traceState !== "" && { traceState: link.traceState }),
      flags: enumNumber(link.flags, "link flags"),
      attributes: keyValues(link.attributes),
    })),
    droppedLinksCount: enumNumber(span.droppedLinksCount, "droppedLinksCount"),
    status: { code: enumNumber(status.code, "status code"), ...(typeof status.message === "string" && { message: status.message }) },
    resource,
    scope,
  };
}

export function decodeMetricsJson(text: string): ReceivedHistogram[] {
  const request = JSON.parse(text) as Json;
  return list(request.resourceMetrics).flatMap((resourceMetrics) => {
    const resource = keyValues((resourceMetrics.resource as Json | undefined)?.attributes);
    return list(resourceMetrics.scopeMetrics).flatMap((scopeMetrics) => {
      const scope = scopeOf(scopeMetrics.scope);
      return list(scopeMetrics.metrics).map((metric) => {
        const histogram = metric.histogram as Json | undefined;
        if (!histogram) throw new Error(`Metric '${metric.name}' is not a histogram`);
        return {
          name: metric.name as string,
          description: (metric.description as string | undefined) ?? "",
          unit: (metric.unit as string | undefined) ?? "",
          temporality: enumNumber(histogram.aggregationTemporality, "aggregationTemporality"),
          points: list(histogram.dataPoints).map(pointOf),
          resource,
          scope,
        };
      });
    });
  });
}

function pointOf(point: Json): ReceivedPoint {
  return {
    attributes: keyValues(point.attributes),
    startTimeUnixNano: int64(point.startTimeUnixNano, "startTimeUnixNano"),
    timeUnixNano: int64(point.timeUnixNano, "timeUnixNano"),
    count: Number(int64(point.count, "count")),
    ...(point.sum !== undefined && { sum: point.sum as number }),
    bucketCounts: list(point.bucketCounts).map((count) => Number(int64(count, "bucketCounts"))),
    explicitBounds: (point.explicitBounds ?? []) as number[],
    ...(point.min !== undefined && { min: point.min as number }),
    ...(point.max !== undefined && { max: point.max as number }),
  };
}
