/**
 * Trace and span ids: random bytes from crypto.getRandomValues, written as lowercase hex (as
 * `traceparent` and OTLP/JSON carry them), and back to bytes for OTLP/protobuf.
 */
/**
 * One pool of random bytes for many ids, written out as hex at once: a call to the random source
 * costs more than the bytes it gives, and an id cut from one long text costs less than one joined
 * from a piece per byte (on a traced call's path, issue 50). The hex is written as ASCII bytes and
 * decoded in one go: joining 4,096 two-digit strings cost about 3 µs a traced call, amortised.
 * Made at the first id, not at start-up, which a workbench with telemetry off must not pay.
 */
const POOL_BYTES = 4096;
let pool: Uint8Array | undefined;
let ascii: Uint8Array | undefined;
let poolHex = "";
let used = POOL_BYTES;
/** The ASCII codes of "0123456789abcdef". */
const DIGITS = [48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 97, 98, 99, 100, 101, 102];
let latin1: TextDecoder | undefined;

function refill(): void {
  pool ??= new Uint8Array(POOL_BYTES);
  ascii ??= new Uint8Array(POOL_BYTES * 2);
  crypto.getRandomValues(pool);
  // Every id starts at a multiple of 8 bytes and spans one or two 8-byte words: none of them all
  // zeros (W3C Trace Context's invalid id) makes every id valid without a look at each (a chance of
  // 2^-64 a word, so the bias is nil).
  for (let word = 0; word < POOL_BYTES; word += 8) {
    let any = 0;
    for (let i = word; i < word + 8; i++) any |= pool[i];
    if (any === 0) pool[word] = 1;
  }
  for (let i = 0; i < POOL_BYTES; i++) {
    ascii[2 * i] = DIGITS[pool[i] >> 4];
    ascii[2 * i + 1] = DIGITS[pool[i] & 15];
  }
  poolHex = (latin1 ??= new TextDecoder("latin1")).decode(ascii);
  used = 0;
}

/** `bytes` (8 or 16) random bytes as hex, never all zeros (see refill). */
function randomHex(bytes: number): string {
  if (used + bytes > POOL_BYTES) refill();
  const hex = poolHex.slice(used * 2, (used + bytes) * 2);
  used += bytes;
  return hex;
}

/** A new trace id: 16 random bytes, 32 hex digits, never all zeros. */
export const newTraceId = (): string => randomHex(16);

/** A new span id: 8 random bytes, 16 hex digits, never all zeros. */
export const newSpanId = (): string => randomHex(8);

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;
const ALL_ZEROS = /^0+$/;

export const isTraceId = (text: string): boolean => TRACE_ID.test(text) && !ALL_ZEROS.test(text);
export const isSpanId = (text: string): boolean => SPAN_ID.test(text) && !ALL_ZEROS.test(text);

/** Writes the bytes of lowercase hex `text` into `into` at `at`; the caller has checked it (ids are made or parsed here). */
export function writeHexBytes(text: string, into: Uint8Array, at: number): void {
  for (let index = 0; index < text.length; index += 2) {
    into[at + index / 2] = (nibble(text.charCodeAt(index)) << 4) | nibble(text.charCodeAt(index + 1));
  }
}

/** A lowercase hex digit's value, from its character code ("0" is 48, "a" is 97). */
const nibble = (code: number): number => (code <= 57 ? code - 48 : code - 87);

/** Lowercase hex of bytes (ids read back by tests, bytes values). */
export function bytesToHex(bytes: Uint8Array): string {
  let hex = "";
  for (const byte of bytes) hex += String.fromCharCode(DIGITS[byte >> 4], DIGITS[byte & 15]);
  return hex;
}
