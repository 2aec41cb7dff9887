/**
 * Decodes OTLP export requests, protobuf and JSON, into one plain form for assertions. The protobuf
 * side is a wire reader of its own with the field numbers of opentelemetry-proto (trace.proto,
 * metrics.proto, common.proto, resource.proto), written apart from src/telemetry's encoder so
 * that the two check each other.
 */

export type Value = string | number | boolean | Value[];

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  traceState?: string;
  flags: number;
  name: string;
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Record<string, Value>;
  droppedAttributesCount: number;
  events: { name: string; timeUnixNano: bigint; attributes: Record<string, Value> }[];
  droppedEventsCount: number;
  links: { traceId: string; spanId: string; traceState?: string; flags: number; attributes: Record<string, Value> }[];
  droppedLinksCount: number;
  status: { code: number; message?: string };
  resource: Record<string, Value>;
  scope: { name: string; version: string };
}

export interface ReceivedPoint {
  attributes: Record<string, Value>;
  startTimeUnixNano: bigint;
  timeUnixNano: bigint;
  count: number;
  sum?: number;
  bucketCounts: number[];
  explicitBounds: number[];
  min?: number;
  max?: number;
}

export interface ReceivedHistogram {
  name: string;
  description: string;
  unit: string;
  temporality: number;
  points: ReceivedPoint[];
  resource: Record<string, Value>;
  scope: { name: string; version: string };
}

/** A protobuf message's fields: by number, every occurrence, as the wire gave it. */
type Fields = Map<number, (bigint | Uint8Array)[]>;

/** Reads one message's fields (varints and fixed values as bigint, length-delimited as bytes). */
export function readFields(bytes: Uint8Array): Fields {
  const fields: Fields = new Map();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (at >= bytes.length) throw new Error("Varint runs past the end");
      const byte = bytes[at++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      if (shift > 63n) throw new Error("Varint longer than ten bytes");
    }
  };
  while (at < bytes.length) {
    const key = Number(varint());
    const [field, wire] = [key >>> 3, key & 7];
    let value: bigint | Uint8Array;
    if (wire === 0) value = varint();
    else if (wire === 1) value = view.getBigUint64((at += 8) - 8, true);
    else if (wire === 5) value = BigInt(view.getUint32((at += 4) - 4, true));
    else if (wire === 2) {
      const length = Number(varint());
      if (at + length > bytes.length) throw new Error(`Field ${field} runs past the end`);
      value = bytes.subarray(at, (at += length));
    } else throw new Error(`Wire type ${wire} of field ${field} is not one OTLP uses`);
    if (at > bytes.length) throw new Error(`Field ${field} runs past the end`);
    fields.set(field, [...(fields.get(field) ?? []), value]);
  }
  return fields;
}

const decoder = new TextDecoder("utf-8", { fatal: true });
const bytesOf = (fields: Fields, field: number): Uint8Array[] => (fields.get(field) ?? []) as Uint8Array[];
const messages = (fields: Fields, field: number): Fields[] => bytesOf(fields, field).map(readFields);
const one = (fields: Fields, field: number): Fields => messages(fields, field)[0] ?? new Map();
const text = (fields: Fields, field: number): string => decoder.decode(bytesOf(fields, field)[0] ?? new Uint8Array());
const integer = (fields: Fields, field: number): bigint => ((fields.get(field) ?? [0n])[0] as bigint);
const hex = (fields: Fields, field: number): string =>
  [...(bytesOf(fields, field)[0] ?? [])].map((byte) => byte.toString(16).padStart(2, "0")).join("");
const double = (raw: bigint): number => {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, raw, true);
  return view.getFloat64(0, true);
};

function anyValue(fields: Fields): Value {
  if (fields.has(1)) return text(fields, 1);
  if (fields.has(2)) return integer(fields, 2) !== 0n;
  if (fields.has(3)) return Number(BigInt.asIntN(64, integer(fields, 3)));
  if (fields.has(4)) return double(integer(fields, 4));
  if (fields.has(5)) return messages(one(fields, 5), 1).map(anyValue);
  throw new Error(`AnyValue with fields ${[...fields.keys()]}`);
}

function keyValues(list: Fields[]): Record<string, Value> {
  return Object.fromEntries(list.map((kv) => [text(kv, 1), anyValue(one(kv, 2))]));
}

function scopeOf(fields: Fields): { name: string; version: string } {
  const scope = one(fields, 1);
  return { name: text(scope, 1), version: text(scope, 2) };
}

/** Every span of a protobuf ExportTraceServiceRequest. */
export function decodeTracesProto(body: Uint8Array): ReceivedSpan[] {
  return messages(readFields(body), 1).flatMap((resourceSpans) => {
    const resource = keyValues(messages(one(resourceSpans, 1), 1));
    return messages(resourceSpans, 2).flatMap((scopeSpans) => {
      const scope = scopeOf(scopeSpans);
      return messages(scopeSpans, 2).map((span) => spanOf(span, resource, scope));
    });
  });
}

function spanOf(span: Fields, resource: Record<string, Value>, scope: { name: string; version: string }): ReceivedSpan {
  const status = one(span, 15);
  return {
    traceId: hex(span, 1),
    spanId: hex(span, 2),
    ...(span.has(4) && { parentSpanId: hex(span, 4) }),
    ...(span.has(3) && { traceState: text(span, 3) }),
    flags: Number(integer(span, 16)),
    name: text(span, 5),
    kind: Number(integer(span, 6)),
    startTimeUnixNano: integer(span, 7),
    endTimeUnixNano: integer(span, 8),
    attributes: keyValues(messages(span, 9)),
    droppedAttributesCount: Number(integer(span, 10)),
    events: messages(span, 11).map((event) => ({
      timeUnixNano: integer(event, 1),
      name: text(event, 2),
      attributes: keyValues(messages(event, 3)),
    })),
    droppedEventsCount: Number(integer(span, 12)),
    links: messages(span, 13).map((link) => ({
      traceId: hex(link, 1),
      spanId: hex(link, 2),
      ...(link.has(3) && { traceState: text(link, 3) }),
      flags: Number(integer(link, 6)),
      attributes: keyValues(messages(link, 4)),
    })),
    droppedLinksCount: Number(integer(span, 14)),
    status: { code: Number(integer(status, 3)), ...(status.has(2) && { message: text(status, 2) }) },
    resource,
    scope,
  };
}

/** Packed `repeated fixed64` or `repeated double`: eight bytes each. */
function packed(fields: Fields, field: number, as: (raw: bigint) => number): number[] {
  return bytesOf(fields, field).flatMap((bytes) => {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return Array.from({ length: bytes.length / 8 }, (_, index) => as(view.getBigUint64(index * 8, true)));
  });
}

/** Every histogram of a protobuf ExportMetricsServiceRequest (other kinds of metric are an error here). */
export function decodeMetricsProto(body: Uint8Array): ReceivedHistogram[] {
  return messages(readFields(body), 1).flatMap((resourceMetrics) => {
    const resource = keyValues(messages(one(resourceMetrics, 1), 1));
    return messages(resourceMetrics, 2).flatMap((scopeMetrics) => {
      const scope = scopeOf(scopeMetrics);
      return messages(scopeMetrics, 2).map((metric) => {
        if (!metric.has(9)) throw new Error(`Metric '${text(metric, 1)}' is not a histogram`);
        const histogram = one(metric, 9);
        return {
          name: text(metric, 1),
          description: text(metric, 2),
          unit: text(metric, 3),
          temporality: Number(integer(histogram, 2)),
          points: messages(histogram, 1).map(pointOf),
          resource,
          scope,
        };
      });
    });
  });
}

function pointOf(point: Fields): ReceivedPoint {
  return {
    attributes: keyValues(messages(point, 9)),
    startTimeUnixNano: integer(point, 2),
    timeUnixNano: integer(point, 3),
    count: Number(integer(point, 4)),
    ...(point.has(5) && { sum: double(integer(point, 5)) }),
    bucketCounts: packed(point, 6, Number),
    explicitBounds: packed(point, 7, double),
    ...(point.has(11) && { min: double(integer(point, 11)) }),
    ...(point.has(12) && { max: double(integer(point, 12)) }),
  };
}
