/**
 * The periodic metric reader: every interval (OTEL_METRIC_EXPORT_INTERVAL) the histograms are
 * collected and sent to the collector, one export at a time; a failed export loses nothing, as the
 * next one carries the cumulative totals. `flush` and `shutdown` send once more within a deadline.
 */
import { within } from "./deadline.ts";
import { type Fetch, type OtlpTarget, postOtlp } from "./exporter.ts";
import type { Histogram, HistogramData } from "./metrics.ts";
import { encodeMetricsJson } from "./otlp-json.ts";
import { encodeMetricsProto, type Origin } from "./otlp-proto.ts";

export interface MetricStats {
  exported: number;
  failed: number;
}

export class MetricReader {
  #timer: ReturnType<typeof setInterval> | undefined;
  #exporting: Promise<boolean> | undefined;
  #failing = false;
  /** Set at shutdown: no export comes after this one. */
  #closing = false;
  /** Aborted at shutdown: an export still running past its deadline is given up. */
  readonly #abort = new AbortController();
  readonly #stats: MetricStats = { exported: 0, failed: 0 };

  constructor(
    readonly histograms: readonly Pick<Histogram, "collect">[],
    readonly target: OtlpTarget,
    readonly origin: Origin,
    readonly timeoutMs: number,
    readonly send: Fetch | undefined,
    readonly onProblem: (message: string) => void,
  ) {}

  get stats(): MetricStats {
    return { ...this.#stats };
  }

  start(intervalMs: number): void {
    this.#timer ??= setInterval(() => void this.#export(this.timeoutMs), intervalMs);
  }

  /** Collects and sends now, unless an export runs (then waits for it); within `timeoutMs`. True when sent (or nothing to send). */
  #export(timeoutMs: number): Promise<boolean> {
    this.#exporting ??= this.#send(timeoutMs).finally(() => (this.#exporting = undefined));
    return this.#exporting;
  }

  async #send(timeoutMs: number): Promise<boolean> {
    const collected = this.histograms.map((histogram) => histogram.collect()).filter((data): data is HistogramData => data !== undefined);
    if (collected.length === 0) return true;
    const json = this.target.protocol === "http/json";
    const body = json ? encodeMetricsJson(collected, this.origin) : encodeMetricsProto(collected, this.origin);
    const outcome = await postOtlp(this.target, body, timeoutMs, this.#abort.signal, this.send);
    if (outcome.ok) {
      this.#stats.exported++;
      this.#failing = false;
      return true;
    }
    this.#stats.failed++;
    // At exit there is no next export to carry the totals.
    const then = this.#closing ? "the totals are lost (the workbench is stopping)" : "the totals go with the next one";
    if (!this.#failing) this.onProblem(`a metrics export failed (${outcome.reason}): ${then}`);
    this.#failing = true;
    return false;
  }

  /** Sends the totals now, within `timeoutMs`; true when the collector took them (or there were none). */
  async flush(timeoutMs: number): Promise<boolean> {
    const deadline = performance.now() + timeoutMs;
    if (this.#exporting && !(await within(this.#exporting, timeoutMs))) return false;
    const sending = this.#export(deadline - performance.now());
    return (await within(sending, deadline - performance.now())) && (await sending);
  }

  /** Stops the interval and sends the totals one last time, within `timeoutMs`. */
  async shutdown(timeoutMs: number): Promise<boolean> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#closing = true;
    const flushed = await this.flush(timeoutMs);
    if (!flushed && !this.#failing) {
      this.onProblem(`the metrics were not sent at exit (no answer within ${timeoutMs} ms): the totals are lost`);
    }
    // The export given up below says nothing more.
    this.#failing = true;
    this.#abort.abort();
    return flushed;
  }
}
