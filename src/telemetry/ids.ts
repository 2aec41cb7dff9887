/**
 * Trace and span ids: random bytes from crypto.getRandomValues, written as lowercase hex (as
 * `traceparent` and OTLP/JSON carry them), and back to bytes for OTLP/protobuf.
 */
/**
 * Made at the first id, not at start-up: building it costs about 0.7 ms in a compiled executable's
 * cold interpreter, which a workbench with telemetry off must not pay.
 */
let hexTable: string[] | undefined;
const hexOf = (): string[] => (hexTable ??= Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0")));
/**
 * One pool of random bytes for many ids, written out as hex at once: a call to the random source
 * costs more than the bytes it gives, and an id cut from one long text costs less than one joined
 * from a piece per byte (on a traced call's path, issue 50).
 */
const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
let poolHex = "";
let used = POOL_BYTES;
/** The invalid all-zero ids, by their length in bytes. */
const ZEROS: Record<number, string> = { 8: "0".repeat(16), 16: "0".repeat(32) };

function randomHex(bytes: number): string {
  for (;;) {
    if (used + bytes > POOL_BYTES) {
      crypto.getRandomValues(pool);
      const HEX = hexOf();
      poolHex = Array.from(pool, (byte) => HEX[byte]).join("");
      used = 0;
    }
    const hex = poolHex.slice(used * 2, (used + bytes) * 2);
    used += bytes;
    // An id of all zeros is invalid (W3C Trace Context): draw again.
    if (hex !== ZEROS[bytes]) return hex;
  }
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
  for (let index = 0; index < text.length; index += 2) into[at + index / 2] = parseInt(text.slice(index, index + 2), 16);
}

/** Lowercase hex of bytes (ids read back by tests, bytes values). */
export function bytesToHex(bytes: Uint8Array): string {
  const HEX = hexOf();
  let hex = "";
  for (const byte of bytes) hex += HEX[byte];
  return hex;
}
