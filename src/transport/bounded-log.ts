/**
 * The workbench's own diagnostic lines on stderr, bounded: a client that sends garbage as fast as
 * it can must not turn our stderr into a copy of it. Each line is cut to a few hundred characters;
 * past a number of lines in one second the rest are counted, and the count is reported in one line
 * before the next line that gets through (or at flush, when the workbench stops).
 */
export interface BoundedLogOptions {
  /** Put before every line, the count of suppressed ones included. */
  prefix?: string;
  maxLineChars?: number;
  linesPerSecond?: number;
  /** Milliseconds; injectable so that tests need no real time. */
  now?: () => number;
}

export class BoundedLog {
  readonly #write: (text: string) => void;
  readonly #prefix: string;
  readonly #maxLineChars: number;
  readonly #linesPerSecond: number;
  readonly #now: () => number;
  #windowStart = -Infinity;
  #linesInWindow = 0;
  #suppressed = 0;

  constructor(write: (text: string) => void, options: BoundedLogOptions = {}) {
    this.#write = write;
    this.#prefix = options.prefix ?? "";
    this.#maxLineChars = options.maxLineChars ?? 300;
    this.#linesPerSecond = options.linesPerSecond ?? 20;
    this.#now = options.now ?? (() => performance.now());
  }

  line(text: string): void {
    const now = this.#now();
    if (now - this.#windowStart >= 1_000) {
      this.flush();
      this.#windowStart = now;
      this.#linesInWindow = 0;
    }
    if (this.#linesInWindow >= this.#linesPerSecond) {
      this.#suppressed++;
      return;
    }
    this.#linesInWindow++;
    const oneLine = `${this.#prefix}${text}`.replace(/\r?\n/g, " ");
    const cut = oneLine.length > this.#maxLineChars ? `${oneLine.slice(0, this.#maxLineChars - 3)}...` : oneLine;
    this.#write(`${cut}\n`);
  }

  /** Reports the lines held back so far, if any. */
  flush(): void {
    if (this.#suppressed === 0) return;
    const count = this.#suppressed;
    this.#suppressed = 0;
    this.#write(`${this.#prefix}${count} more log line${count === 1 ? "" : "s"} suppressed\n`);
  }
}
