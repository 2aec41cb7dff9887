/**
 * The duration histograms of the MCP conventions (`mcp.server.operation.duration`,
 * `mcp.client.operation.duration`): explicit buckets in seconds, one series per attribute set,
 * cumulative from the start. The number of series is bounded: past the limit, measurements go to
 * one series marked `otel.metric.overflow`, so memory never grows with what the peers send.
 */
import { nowUnixNano } from "./clock.ts";
import type { AttributeValue, Attributes } from "./span.ts";

/** The conventions' ExplicitBucketBoundaries for both duration histograms, in seconds. */
export const DURATION_BOUNDARIES: readonly number[] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** The OpenTelemetry SDK's default cardinality limit per instrument. */
export const DEFAULT_SERIES_LIMIT = 2000;

const OVERFLOW: Attributes = { "otel.metric.overflow": true };

export interface HistogramPoint {
  readonly attributes: Attributes;
  count: number;
  sum: number;
  min: number;
  max: number;
  /** One more than the boundaries: the last bucket holds what is above the last boundary. */
  readonly bucketCounts: number[];
}

/** One histogram as a collection hands it to an encoder. */
export interface HistogramData {
  readonly name: string;
  readonly description: string;
  readonly unit: string;
  readonly boundaries: readonly number[];
  readonly startTimeUnixNano: bigint;
  readonly timeUnixNano: bigint;
  readonly points: readonly HistogramPoint[];
}

export class Histogram {
  readonly #series = new Map<string, HistogramPoint>();
  readonly #startTimeUnixNano = nowUnixNano();

  constructor(
    readonly name: string,
    readonly description: string,
    readonly unit: string,
    readonly boundaries: readonly number[] = DURATION_BOUNDARIES,
    readonly seriesLimit: number = DEFAULT_SERIES_LIMIT,
  ) {}

  /** Adds one measurement to the series of `attributes` (a negative or non-finite value is dropped). */
  record(value: number, attributes: Attributes): void {
    this.recordSeries(value, seriesKey(attributes), () => attributes);
  }

  /**
   * Adds one measurement to the series `key` names (the caller's own key for an attribute set:
   * one string made in a fixed order costs less than sorting), made from `attributes()` when new.
   */
  recordSeries(value: number, key: string, attributes: () => Attributes): void {
    if (!Number.isFinite(value) || value < 0) return;
    const point = this.#pointOf(key, attributes);
    point.count++;
    point.sum += value;
    if (value < point.min) point.min = value;
    if (value > point.max) point.max = value;
    point.bucketCounts[bucketOf(this.boundaries, value)]!++;
  }

  #pointOf(key: string, attributes: () => Attributes): HistogramPoint {
    let point = this.#series.get(key);
    if (point) return point;
    // The last place is kept for the overflow series.
    const full = this.#series.size >= this.seriesLimit - 1;
    const [pointKey, pointAttributes] = full ? ["\u0000overflow", OVERFLOW] : [key, { ...attributes() }];
    point = this.#series.get(pointKey);
    if (point) return point;
    const bucketCounts = new Array<number>(this.boundaries.length + 1).fill(0);
    point = { attributes: pointAttributes, count: 0, sum: 0, min: Infinity, max: -Infinity, bucketCounts };
    this.#series.set(pointKey, point);
    return point;
  }

  /** Every series so far (cumulative: each from the histogram's start), or undefined when nothing was recorded. */
  collect(): HistogramData | undefined {
    if (this.#series.size === 0) return undefined;
    const points = [...this.#series.values()].map((point) => ({ ...point, bucketCounts: [...point.bucketCounts] }));
    return {
      name: this.name,
      description: this.description,
      unit: this.unit,
      boundaries: this.boundaries,
      startTimeUnixNano: this.#startTimeUnixNano,
      timeUnixNano: nowUnixNano(),
      points,
    };
  }
}

/** The bucket of a value: bucket i holds (boundary[i-1], boundary[i]], as OTLP defines explicit buckets. */
export function bucketOf(boundaries: readonly number[], value: number): number {
  let low = 0;
  let high = boundaries.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (value <= boundaries[middle]!) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** The same attributes give the same key whatever their order. */
function seriesKey(attributes: Attributes): string {
  return Object.keys(attributes).sort().map((key) => `${key}\u0000${keyPart(attributes[key]!)}`).join("\u0001");
}

function keyPart(value: AttributeValue): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}
