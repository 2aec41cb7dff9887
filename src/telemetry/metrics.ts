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

/** One attribute's value in a series' path: the next values, and the point where a path ends. */
interface SeriesNode {
  readonly next: Map<unknown, SeriesNode>;
  point?: HistogramPoint;
}

export class Histogram {
  /**
   * The series as a tree: one level per attribute name, keyed by its value (undefined when absent),
   * rooted at the list of names. A measurement finds its series by reading each value once: no key
   * string is made and hashed for every span, which was most of what a span cost (issue 50).
   */
  readonly #roots = new Map<unknown, SeriesNode>();
  readonly #points: HistogramPoint[] = [];
  #overflow?: HistogramPoint;
  readonly #startTimeUnixNano = nowUnixNano();

  constructor(
    readonly name: string,
    readonly description: string,
    readonly unit: string,
    readonly boundaries: readonly number[] = DURATION_BOUNDARIES,
    readonly seriesLimit: number = DEFAULT_SERIES_LIMIT,
  ) {}

  /** Adds one measurement to the series of `attributes`, whatever their order (a negative or non-finite value is dropped). */
  record(value: number, attributes: Attributes): void {
    const names = Object.keys(attributes).sort();
    this.recordOf(value, attributes, names, names.join("\u0000"));
  }

  /**
   * Adds one measurement to the series of `attributes`' values of `names` (an absent one is a value
   * too). `root` tells the lists of names apart: by default the list itself, which the caller keeps.
   */
  recordOf(value: number, attributes: Attributes, names: readonly string[], root: unknown = names): void {
    if (!Number.isFinite(value) || value < 0) return;
    const point = this.#pointOf(attributes, names, root);
    point.count++;
    point.sum += value;
    if (value < point.min) point.min = value;
    if (value > point.max) point.max = value;
    point.bucketCounts[bucketOf(this.boundaries, value)]!++;
  }

  #pointOf(attributes: Attributes, names: readonly string[], root: unknown): HistogramPoint {
    // The last place is kept for the overflow series: past it, no node is made.
    const full = this.#points.length >= this.seriesLimit - 1;
    let node: SeriesNode | undefined = this.#roots.get(root);
    if (!node) {
      if (full) return this.#overflowPoint();
      this.#roots.set(root, node = { next: new Map() });
    }
    for (const name of names) {
      const value = seriesValue(attributes[name]);
      let next: SeriesNode | undefined = node.next.get(value);
      if (!next) {
        if (full) return this.#overflowPoint();
        node.next.set(value, next = { next: new Map() });
      }
      node = next;
    }
    if (node.point) return node.point;
    if (full) return this.#overflowPoint();
    const kept: Attributes = {};
    for (const name of names) if (attributes[name] !== undefined) kept[name] = attributes[name]!;
    return node.point = this.#newPoint(kept);
  }

  #overflowPoint(): HistogramPoint {
    return this.#overflow ??= this.#newPoint(OVERFLOW);
  }

  #newPoint(attributes: Attributes): HistogramPoint {
    const bucketCounts = new Array<number>(this.boundaries.length + 1).fill(0);
    const point = { attributes, count: 0, sum: 0, min: Infinity, max: -Infinity, bucketCounts };
    this.#points.push(point);
    return point;
  }

  /** Every series so far (cumulative: each from the histogram's start), or undefined when nothing was recorded. */
  collect(): HistogramData | undefined {
    if (this.#points.length === 0) return undefined;
    const points = this.#points.map((point) => ({ ...point, bucketCounts: [...point.bucketCounts] }));
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

/** A value as a series' path holds it: an array by its JSON (two equal lists are one series). */
function seriesValue(value: AttributeValue | undefined): unknown {
  return Array.isArray(value) ? JSON.stringify(value) : value;
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
