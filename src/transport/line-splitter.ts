/**
 * Splits a byte stream into newline-terminated lines. Each byte is scanned once and each line is
 * copied once (when it is complete), so framing stays linear in the message size.
 */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

export type LineEvent =
  | { kind: "line"; bytes: Uint8Array }
  | { kind: "oversized"; bytes: number };

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

export class LineSplitter {
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  /** True while skipping the rest of a line that went over the limit. */
  #discarding = false;
  #discarded = 0;

  constructor(readonly maxLineBytes: number = DEFAULT_MAX_LINE_BYTES) {}

  /** Feeds one chunk; returns the lines it completed, in order. */
  push(chunk: Uint8Array): LineEvent[] {
    const events: LineEvent[] = [];
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf(NEWLINE, start);
      const stop = end === -1 ? chunk.length : end;
      this.#take(chunk.subarray(start, stop), events);
      if (end === -1) break;
      this.#finishLine(events);
      start = end + 1;
    }
    return events;
  }

  /** Bytes of an unfinished line held at the end of the stream, if any. */
  get pendingBytes(): number {
    return this.#pendingBytes;
  }

  #take(piece: Uint8Array, events: LineEvent[]): void {
    if (piece.length === 0) return;
    if (this.#discarding) {
      this.#discarded += piece.length;
      return;
    }
    if (this.#pendingBytes + piece.length > this.maxLineBytes) {
      this.#discarding = true;
      this.#discarded = this.#pendingBytes + piece.length;
      this.#pending = [];
      this.#pendingBytes = 0;
      events.push({ kind: "oversized", bytes: this.#discarded });
      return;
    }
    this.#pending.push(piece);
    this.#pendingBytes += piece.length;
  }

  #finishLine(events: LineEvent[]): void {
    if (this.#discarding) {
      this.#discarding = false;
      this.#discarded = 0;
      return;
    }
    let line = this.#pending.length === 1 ? this.#pending[0] : concat(this.#pending, this.#pendingBytes);
    this.#pending = [];
    this.#pendingBytes = 0;
    if (line.length > 0 && line[line.length - 1] === CARRIAGE_RETURN) line = line.subarray(0, -1);
    if (!isBlank(line)) events.push({ kind: "line", bytes: line });
  }
}

function concat(pieces: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let offset = 0;
  for (const piece of pieces) {
    out.set(piece, offset);
    offset += piece.length;
  }
  return out;
}

function isBlank(line: Uint8Array): boolean {
  for (const byte of line) {
    if (byte !== 0x20 && byte !== 0x09 && byte !== CARRIAGE_RETURN) return false;
  }
  return true;
}
