/**
 * Splits a byte stream into newline-terminated lines. Each byte is scanned once and each line is
 * copied once (when it is complete), so framing stays linear in the message size; a long line is
 * not copied at all but handed over as its pieces.
 */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * An oversized line is reported when it ends, with its size and its first and last bytes: enough
 * to find the id of a JSON-RPC message (a response's id comes last) and fail just that request.
 */
export type LineEvent =
  | { kind: "line"; bytes: Uint8Array }
  /** A line of at least `piecesFrom` bytes, as the chunks it came in: joining them is left to the reader. */
  | { kind: "pieces"; pieces: Uint8Array[]; bytes: number }
  | { kind: "oversized"; bytes: number; head: Uint8Array; tail: Uint8Array };

/** How much of each end of an oversized line is kept. */
const EDGE_BYTES = 256;

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

export class LineSplitter {
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  /** Set while skipping the rest of a line that went over the limit. */
  #discarding?: { bytes: number; head: Uint8Array; tail: Uint8Array };

  constructor(readonly maxLineBytes: number = DEFAULT_MAX_LINE_BYTES, readonly piecesFrom: number = Infinity) {}

  /** Feeds one chunk; returns the lines it completed, in order. */
  push(chunk: Uint8Array): LineEvent[] {
    const events: LineEvent[] = [];
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf(NEWLINE, start);
      const stop = end === -1 ? chunk.length : end;
      this.#take(chunk.subarray(start, stop));
      if (end === -1) break;
      this.#finishLine(events);
      start = end + 1;
    }
    return events;
  }

  /** The unfinished last line at the end of a stream, if it has any text. */
  rest(): Uint8Array | undefined {
    const line = concat(this.#pending, this.#pendingBytes);
    this.#pending = [];
    this.#pendingBytes = 0;
    return isBlank(line) ? undefined : line;
  }

  #take(piece: Uint8Array): void {
    if (piece.length === 0) return;
    if (this.#discarding) {
      this.#discarding.bytes += piece.length;
      this.#discarding.tail = lastBytes(this.#discarding.tail, piece);
      return;
    }
    if (this.#pendingBytes + piece.length > this.maxLineBytes) {
      this.#discarding = {
        bytes: this.#pendingBytes + piece.length,
        head: firstBytes([...this.#pending, piece]),
        tail: lastBytes(new Uint8Array(0), piece),
      };
      this.#pending = [];
      this.#pendingBytes = 0;
      return;
    }
    this.#pending.push(piece);
    this.#pendingBytes += piece.length;
  }

  #finishLine(events: LineEvent[]): void {
    if (this.#discarding) {
      events.push({ kind: "oversized", ...this.#discarding });
      this.#discarding = undefined;
      return;
    }
    const pieces = this.#pending;
    const bytes = this.#pendingBytes;
    this.#pending = [];
    this.#pendingBytes = 0;
    if (bytes >= this.piecesFrom) {
      // A CR before the newline is JSON's whitespace: it can stay.
      events.push({ kind: "pieces", pieces, bytes });
      return;
    }
    let line = pieces.length === 1 ? pieces[0] : concat(pieces, bytes);
    if (line.length > 0 && line[line.length - 1] === CARRIAGE_RETURN) line = line.subarray(0, -1);
    if (!isBlank(line)) events.push({ kind: "line", bytes: line });
  }
}

/** The pieces joined into one array. */
export function concatBytes(pieces: Uint8Array[]): Uint8Array {
  return concat(pieces, pieces.reduce((sum, piece) => sum + piece.length, 0));
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

/** The first EDGE_BYTES across the pieces, copied. */
function firstBytes(pieces: Uint8Array[]): Uint8Array {
  const out: Uint8Array[] = [];
  let total = 0;
  for (const piece of pieces) {
    if (total >= EDGE_BYTES) break;
    const part = piece.subarray(0, EDGE_BYTES - total);
    out.push(part);
    total += part.length;
  }
  return concat(out, total);
}

/** The last EDGE_BYTES of `kept` followed by `piece`. */
function lastBytes(kept: Uint8Array, piece: Uint8Array): Uint8Array {
  if (piece.length >= EDGE_BYTES) return piece.slice(piece.length - EDGE_BYTES);
  const joined = concat([kept, piece], kept.length + piece.length);
  return joined.slice(Math.max(0, joined.length - EDGE_BYTES));
}

export function isBlank(line: Uint8Array): boolean {
  for (const byte of line) {
    if (byte !== 0x20 && byte !== 0x09 && byte !== CARRIAGE_RETURN) return false;
  }
  return true;
}
