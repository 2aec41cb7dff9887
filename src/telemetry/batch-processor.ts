/**
 * The batch span processor: ended spans wait in a bounded queue and go to the collector in batches,
 * one export at a time, every few seconds or as soon as a batch is full. A span that finds the
 * queue full is dropped and counted: a slow or absent collector costs memory up to the bound and no
 * caller ever waits for it. `flush` and `shutdown` send what is left within a deadline.
 */
import { within } from "./deadline.ts";
import type { ExportOutcome } from "./exporter.ts";

/** OTEL_BSP_*: the standard's names and defaults. */
export interface BatchSettings {
  /** OTEL_BSP_SCHEDULE_DELAY: the longest a span waits before its batch is sent (5000). */
  scheduleDelayMs: number;
  /** OTEL_BSP_MAX_QUEUE_SIZE: spans kept at most; more are dropped (2048). */
  maxQueueSize: number;
  /** OTEL_BSP_MAX_EXPORT_BATCH_SIZE: spans in one request at most (512). */
  maxExportBatchSize: number;
  /** OTEL_BSP_EXPORT_TIMEOUT: the longest one export may take (30000). */
  exportTimeoutMs: number;
}

export const DEFAULT_BATCH: Readonly<BatchSettings> = {
  scheduleDelayMs: 5000,
  maxQueueSize: 2048,
  maxExportBatchSize: 512,
  exportTimeoutMs: 30_000,
};

export interface BatchStats {
  /** Waiting in the queue now. */
  queued: number;
  /** Accepted by the collector. */
  exported: number;
  /** Never sent: the queue was full, or the processor was shut down. */
  dropped: number;
  /** Sent, and refused or lost (the collector answered an error, or did not answer in time). */
  failed: number;
}

/** Sends one batch within `timeoutMs`; `signal` aborts it sooner (a shutdown past its deadline). */
export type ExportBatch<T> = (items: T[], timeoutMs: number, signal: AbortSignal) => Promise<ExportOutcome>;

export class BatchProcessor<T> {
  #queue: T[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerIsNow = false;
  #exporting: Promise<void> | undefined;
  #abort: AbortController | undefined;
  #closed = false;
  #failing = false;
  #told = false;
  /** The spans of the export under way. */
  #sending = 0;
  readonly #stats = { exported: 0, dropped: 0, failed: 0 };

  constructor(
    readonly settings: BatchSettings,
    readonly exportBatch: ExportBatch<T>,
    /** Told once when exports start failing or spans start being dropped (not again until an export succeeds). */
    readonly onProblem: (message: string) => void = () => {},
  ) {}

  get stats(): BatchStats {
    return { queued: this.#queue.length, ...this.#stats };
  }

  /** Takes an ended span; never waits and never throws. */
  add(item: T): void {
    if (this.#closed || this.#queue.length >= this.settings.maxQueueSize) {
      this.#stats.dropped++;
      // The message is made once an outage, not at every span dropped.
      if (!this.#closed && !this.#told) {
        this.#tell(`the queue is full (${this.settings.maxQueueSize}): spans are dropped until the collector keeps up`);
      }
      return;
    }
    this.#queue.push(item);
    this.#schedule(this.#queue.length >= this.settings.maxExportBatchSize);
  }

  /**
   * Starts an export on a timer: after the schedule delay, or at once (`now`: a full batch waits)
   * but still on a task of its own, as encoding a batch takes milliseconds no call may wait for.
   */
  #schedule(now = false): void {
    if (this.#exporting !== undefined || this.#closed) return;
    if (this.#timer !== undefined) {
      if (!now || this.#timerIsNow) return;
      clearTimeout(this.#timer);
    }
    this.#timerIsNow = now;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#start(this.settings.exportTimeoutMs);
    }, now ? 0 : this.settings.scheduleDelayMs);
  }

  /** Starts exporting unless an export runs: it takes full batches until fewer than a batch wait, then schedules the rest. */
  #start(timeoutMs: number): void {
    if (this.#exporting !== undefined || this.#queue.length === 0) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#exporting = this.#run(timeoutMs).finally(() => {
      this.#exporting = undefined;
      if (this.#queue.length > 0) this.#schedule(this.#queue.length >= this.settings.maxExportBatchSize);
    });
  }

  async #run(timeoutMs: number): Promise<void> {
    const batch = this.#queue.splice(0, this.settings.maxExportBatchSize);
    this.#sending = batch.length;
    const abort = this.#abort = new AbortController();
    let outcome: ExportOutcome;
    try {
      outcome = await this.exportBatch(batch, timeoutMs, abort.signal);
    } catch (error) {
      outcome = { ok: false, reason: error instanceof Error ? error.message : String(error) };
    }
    this.#abort = undefined;
    this.#sending = 0;
    if (outcome.ok) {
      this.#stats.exported += batch.length;
      this.#failing = this.#told = false;
      return;
    }
    this.#stats.failed += batch.length;
    if (!this.#failing) this.#tell(`an export failed (${outcome.reason}): its ${batch.length} spans are lost`);
    this.#failing = true;
  }

  #tell(message: string): void {
    if (this.#told) return;
    this.#told = true;
    this.onProblem(message);
  }

  /** Sends every queued span, batch by batch, within `timeoutMs`; true when the queue was emptied in time. */
  async flush(timeoutMs: number): Promise<boolean> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const left = deadline - performance.now();
      if (this.#exporting !== undefined && !(await within(this.#exporting, left))) return false;
      if (this.#queue.length === 0) return true;
      if (deadline - performance.now() <= 0) return false;
      this.#start(Math.min(this.settings.exportTimeoutMs, deadline - performance.now()));
    }
  }

  /** Flushes within `timeoutMs`, then takes no more: what could not be sent is counted as dropped. */
  async shutdown(timeoutMs: number): Promise<void> {
    if (this.#closed) return;
    const flushed = await this.flush(timeoutMs);
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (!flushed) {
      // The export still running is given up: its spans count as failed, the rest as dropped. Said
      // whatever was said before: the exit is the last chance to know what the collector missed.
      const lost = this.#sending + this.#queue.length;
      this.#told = this.#failing = true;
      this.#abort?.abort();
      this.#stats.dropped += this.#queue.length;
      this.#queue = [];
      this.onProblem(`${lost} spans not sent at exit (the collector did not take them within ${timeoutMs} ms): lost`);
    }
  }
}
