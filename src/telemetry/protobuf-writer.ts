/**
 * The protobuf wire format, written by hand for OTLP (varints, fixed64, doubles, strings, bytes
 * and nested messages) into one growing buffer. A nested message's length is known only once it is
 * written: one byte is kept for it, and the body moves over in the rare case it needs more.
 * A writer is used again (`reset`): a batch's buffer is grown once, not at every export.
 */
const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LENGTH = 2;
const WIRE_FIXED32 = 5;

const encoder = new TextEncoder();

/** A buffer kept between uses up to this size; a larger one (a batch of huge attributes) is let go. */
const KEPT_BYTES = 1024 * 1024;
/** Keys written often (attribute names: a few dozen) are kept encoded, tag and length included, up to this many. */
const KEPT_KEYS = 256;

export class ProtoWriter {
  #buffer: Uint8Array;
  #view: DataView;
  #position = 0;
  readonly #initialBytes: number;
  /** Each key's `string(1, key)` bytes, by key (see `key`). */
  readonly #keys = new Map<string, Uint8Array>();

  constructor(initialBytes = 16 * 1024) {
    this.#initialBytes = initialBytes;
    this.#buffer = new Uint8Array(initialBytes);
    this.#view = new DataView(this.#buffer.buffer);
  }

  /** Empties the writer for the next message, keeping its buffer unless it grew past KEPT_BYTES. */
  reset(): this {
    this.#position = 0;
    if (this.#buffer.length > KEPT_BYTES) {
      this.#buffer = new Uint8Array(this.#initialBytes);
      this.#view = new DataView(this.#buffer.buffer);
    }
    return this;
  }

  #ensure(extra: number): void {
    if (this.#position + extra <= this.#buffer.length) return;
    let size = this.#buffer.length * 2;
    while (size < this.#position + extra) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.#buffer.subarray(0, this.#position));
    this.#buffer = grown;
    this.#view = new DataView(grown.buffer);
  }

  /** A non-negative integer up to 2^53 as a varint. */
  #varint(value: number): void {
    this.#ensure(10);
    while (value > 127) {
      this.#buffer[this.#position++] = (value % 128) | 128;
      value = Math.floor(value / 128);
    }
    this.#buffer[this.#position++] = value;
  }

  #tag(field: number, wire: number): void {
    this.#varint(field * 8 + wire);
  }

  /** uint32, uint64 below 2^53, or an enum. */
  uint(field: number, value: number): this {
    this.#tag(field, WIRE_VARINT);
    this.#varint(value);
    return this;
  }

  /** int64: a negative value is its 64-bit two's complement, ten bytes. */
  int64(field: number, value: number): this {
    this.#tag(field, WIRE_VARINT);
    if (value >= 0 && Number.isSafeInteger(value)) {
      this.#varint(value);
      return this;
    }
    let rest = BigInt.asUintN(64, BigInt(Math.trunc(value)));
    this.#ensure(10);
    while (rest > 127n) {
      this.#buffer[this.#position++] = Number(rest & 127n) | 128;
      rest >>= 7n;
    }
    this.#buffer[this.#position++] = Number(rest);
    return this;
  }

  bool(field: number, value: boolean): this {
    return this.uint(field, value ? 1 : 0);
  }

  fixed32(field: number, value: number): this {
    this.#tag(field, WIRE_FIXED32);
    this.#ensure(4);
    this.#view.setUint32(this.#position, value >>> 0, true);
    this.#position += 4;
    return this;
  }

  fixed64(field: number, value: bigint): this {
    this.#tag(field, WIRE_FIXED64);
    this.#ensure(8);
    this.#view.setBigUint64(this.#position, value, true);
    this.#position += 8;
    return this;
  }

  double(field: number, value: number): this {
    this.#tag(field, WIRE_FIXED64);
    this.#ensure(8);
    this.#view.setFloat64(this.#position, value, true);
    this.#position += 8;
    return this;
  }

  /** `repeated fixed64`, packed. */
  packedFixed64(field: number, values: readonly number[]): this {
    const start = this.fork(field);
    this.#ensure(values.length * 8);
    for (const value of values) {
      this.#view.setBigUint64(this.#position, BigInt(value), true);
      this.#position += 8;
    }
    return this.join(start);
  }

  /** `repeated double`, packed. */
  packedDouble(field: number, values: readonly number[]): this {
    const start = this.fork(field);
    this.#ensure(values.length * 8);
    for (const value of values) {
      this.#view.setFloat64(this.#position, value, true);
      this.#position += 8;
    }
    return this.join(start);
  }

  string(field: number, text: string): this {
    const start = this.fork(field);
    // UTF-8 takes at most three bytes per UTF-16 unit.
    this.#ensure(text.length * 3);
    const buffer = this.#buffer;
    let at = this.#position;
    let index = 0;
    // ASCII, as almost every name and value is, is copied unit by unit: encodeInto costs more for short strings.
    for (; index < text.length; index++) {
      const code = text.charCodeAt(index);
      if (code >= 0x80) break;
      buffer[at++] = code;
    }
    if (index < text.length) at += encoder.encodeInto(text.slice(index), buffer.subarray(at)).written;
    this.#position = at;
    return this.join(start);
  }

  /**
   * `string(1, key)`, an attribute's key (a KeyValue's field 1): its bytes are made once and copied
   * after (a batch writes the same few dozen names thousands of times).
   */
  key(key: string): this {
    const bytes = this.#keys.get(key);
    if (bytes === undefined) {
      const start = this.#position;
      this.string(1, key);
      if (this.#keys.size < KEPT_KEYS) this.#keys.set(key, this.#buffer.slice(start, this.#position));
      return this;
    }
    this.#ensure(bytes.length);
    this.#buffer.set(bytes, this.#position);
    this.#position += bytes.length;
    return this;
  }

  /** Bytes given as lowercase hex (trace and span ids, made or checked lowercase in ids.ts and trace-context.ts). */
  hexBytes(field: number, hex: string): this {
    const length = hex.length >> 1;
    // An id's length (8 or 16) is known before its bytes: one byte of it, no fork and join.
    if (length > 127) throw new RangeError(`Hex bytes are ids of at most 127 bytes, not ${length}`);
    this.#tag(field, WIRE_LENGTH);
    this.#ensure(length + 1);
    const buffer = this.#buffer;
    let at = this.#position;
    buffer[at++] = length;
    for (let index = 0; index < length; index++) {
      buffer[at++] = (nibble(hex.charCodeAt(index * 2)) << 4) | nibble(hex.charCodeAt(index * 2 + 1));
    }
    this.#position = at;
    return this;
  }


  /** Opens a length-delimited field (a nested message): write its body, then `join` what this returns. */
  fork(field: number): number {
    this.#tag(field, WIRE_LENGTH);
    this.#ensure(1);
    this.#position++;
    return this.#position;
  }

  /** Closes what `fork` opened: writes the body's length before it, moving the body when the length needs more than one byte. */
  join(start: number): this {
    const length = this.#position - start;
    let size = 1;
    for (let rest = length; rest > 127; rest = Math.floor(rest / 128)) size++;
    if (size > 1) {
      this.#ensure(size - 1);
      this.#buffer.copyWithin(start + size - 1, start, this.#position);
      this.#position += size - 1;
    }
    let at = start - 1;
    let rest = length;
    while (rest > 127) {
      this.#buffer[at++] = (rest % 128) | 128;
      rest = Math.floor(rest / 128);
    }
    this.#buffer[at] = rest;
    return this;
  }

  /** The bytes written, as a copy of their own. */
  finish(): Uint8Array {
    return this.#buffer.slice(0, this.#position);
  }
}

/** The value of one lowercase hex digit's character code. */
function nibble(code: number): number {
  return code <= 0x39 ? code - 0x30 : code - 0x57;
}
