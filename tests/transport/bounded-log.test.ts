import { test } from "node:test";
import assert from "node:assert/strict";
import { BoundedLog } from "../../src/transport/bounded-log.ts";

function recorder() {
  let now = 0;
  const written: string[] = [];
  const log = new BoundedLog((text) => written.push(text), { prefix: "wb: ", now: () => now });
  return { log, written, advance: (ms: number) => (now += ms) };
}

test("log: a line is cut to 300 characters and kept on one line", () => {
  const { log, written } = recorder();
  log.line(`a\nb ${"x".repeat(1_000)}`);
  assert.equal(written.length, 1);
  assert.equal(written[0], `wb: a b ${"x".repeat(289)}...\n`);
  assert.equal(written[0].length, 301);
});

test("log: past 20 lines in a second the rest are counted, and the count comes before the next line", () => {
  const { log, written, advance } = recorder();
  for (let i = 0; i < 50; i++) log.line(`line ${i}`);
  assert.equal(written.length, 20);
  advance(999);
  log.line("still held");
  assert.equal(written.length, 20);
  advance(1);
  log.line("next second");
  assert.deepEqual(written.slice(20), ["wb: 31 more log lines suppressed\n", "wb: next second\n"]);
});

test("log: flush reports what is held back, once", () => {
  const { log, written } = recorder();
  for (let i = 0; i < 22; i++) log.line("x");
  log.flush();
  log.flush();
  assert.deepEqual(written.slice(20), ["wb: 2 more log lines suppressed\n"]);
});
