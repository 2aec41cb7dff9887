import { test } from "node:test";
import assert from "node:assert/strict";
import { bytesToHex, isSpanId, isTraceId, newSpanId, newTraceId, writeHexBytes } from "../../src/telemetry/ids.ts";

test("ids: trace and span ids are lowercase hex of 16 and 8 random bytes, valid, and distinct across pool refills", () => {
  const seen = new Set<string>();
  const high = new Set<string>();
  const low = new Set<string>();
  let twins = 0;
  // 1,000 of each: 24,000 bytes, the 4,096-byte pool refilled five times.
  for (let i = 0; i < 1000; i++) {
    const trace = newTraceId();
    const span = newSpanId();
    assert.match(trace, /^[0-9a-f]{32}$/);
    assert.match(span, /^[0-9a-f]{16}$/);
    assert.ok(isTraceId(trace) && isSpanId(span));
    seen.add(trace).add(span);
    const hex = trace + span;
    for (let at = 0; at < hex.length; at += 2) {
      high.add(hex[at]);
      low.add(hex[at + 1]);
      if (hex[at] === hex[at + 1]) twins++;
    }
  }
  assert.equal(seen.size, 2000);
  // Both halves of each byte are written, each from its own four bits: every digit turns up in
  // each place, and a byte's two digits are alike about one time in 16 (24,000 bytes).
  assert.equal(high.size, 16);
  assert.equal(low.size, 16);
  assert.ok(twins > 1000 && twins < 2000, `${twins} bytes of two like digits`);
});

test("ids: hex written as bytes and read back is the same, for every byte value", () => {
  const bytes = Uint8Array.from({ length: 256 }, (_, value) => value);
  const hex = bytesToHex(bytes);
  assert.equal(hex, Array.from(bytes, (value) => value.toString(16).padStart(2, "0")).join(""));
  const back = new Uint8Array(258);
  writeHexBytes(hex, back, 2);
  assert.deepEqual(back.subarray(2), bytes);
});

test("ids: a source of random bytes that gives only zeros still gives valid ids, never all zeros", () => {
  const original = crypto.getRandomValues;
  // Zeros from the next refill on: 600 span ids (4,800 bytes) take at least one.
  crypto.getRandomValues = (<T extends ArrayBufferView | null>(array: T): T => {
    if (array) new Uint8Array(array.buffer, array.byteOffset, array.byteLength).fill(0);
    return array;
  }) as typeof crypto.getRandomValues;
  try {
    const ids = Array.from({ length: 600 }, () => newSpanId());
    const traces = Array.from({ length: 300 }, () => newTraceId());
    for (const id of ids) assert.ok(isSpanId(id), `${id} is not a valid span id`);
    for (const id of traces) assert.ok(isTraceId(id), `${id} is not a valid trace id`);
  } finally {
    crypto.getRandomValues = original;
    // What is left of the pool was drawn from zeros: 513 span ids (4,104 bytes) reach a refill
    // from the real source, so the tests after this one get random ids again.
    for (let i = 0; i < 513; i++) newSpanId();
  }
});
