/** The session's kept results (issue 28): bounded in bytes (oldest first) and in age since the last read. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { COLLECT_AFTER_BYTES, MAX_AGE_MS, MAX_BYTES, ResultStore } from "../../src/tools/result-store.ts";

const text = (value: string) => ({ type: "text" as const, text: value });

test("result store: the defaults are 64 MiB and 30 minutes", () => {
  assert.equal(MAX_BYTES, 64 * 1024 * 1024);
  assert.equal(MAX_AGE_MS, 30 * 60 * 1000);
});

test("result store: past the byte bound the oldest results go first, a result read is the newest", () => {
  const store = new ResultStore({ maxBytes: 1_000 });
  const a = store.keep("dev", 10, [text("a".repeat(200))]);
  const b = store.keep("dev", 10, [text("b".repeat(200))]);
  assert.equal(store.bytes, 800);
  assert.ok(store.get(a.id), "read: now the newest");
  const c = store.keep("dev", 10, [text("c".repeat(200))]);
  assert.equal(store.get(b.id), undefined, "the oldest unread went");
  assert.ok(store.get(a.id) && store.get(c.id));
  assert.equal(store.bytes, 800);
});

test("result store: one result over the whole bound keeps its start and says how much it lost", () => {
  const store = new ResultStore({ maxBytes: 1_000 });
  const image = { type: "image" as const, data: "AAAA", mimeType: "image/png" };
  const kept = store.keep("dev", 10, [text("😀".repeat(400)), image]);
  assert.equal(kept.items.length, 1);
  const [item] = kept.items as { text: string }[];
  assert.equal(item.text.length, 500, "cut at a whole character (two UTF-16 units)");
  assert.equal(kept.dropped, 300 + 1);
  assert.ok(store.bytes <= 1_000);
});

test("result store: a result not read for the age bound is gone; each read restarts its age", () => {
  let now = 0;
  const store = new ResultStore({ maxAgeMs: 1_000, now: () => now });
  const a = store.keep("dev", 10, [text("a")]);
  const b = store.keep("dev", 10, [text("b")]);
  now = 900;
  assert.ok(store.get(a.id));
  now = 1_500;
  assert.ok(store.get(a.id), "read at 900: kept until 1900");
  assert.equal(store.get(b.id), undefined, "kept at 0, never read: gone at 1001");
  assert.equal(store.bytes, 2);
  now = 5_000;
  assert.equal(store.get(a.id), undefined);
  assert.equal(store.bytes, 0);
});

test("result store: after every 4 MiB of results forgotten, their memory is given back (collect), not before (issue 54)", () => {
  assert.equal(COLLECT_AFTER_BYTES, 4 * 1024 * 1024);
  let collections = 0;
  // Each result of 1 MiB characters counts 2 MiB; the store keeps 4 of them.
  const store = new ResultStore({ maxBytes: 8 * 1024 * 1024, collect: () => collections++ });
  const result = () => store.keep("dev", 10, [text("x".repeat(1024 * 1024))]);
  for (let kept = 0; kept < 4 + 1; kept++) result();
  assert.equal(collections, 0, "one result (2 MiB) forgotten: not yet");
  result();
  assert.equal(collections, 1, "the second (4 MiB)");
  for (let kept = 0; kept < 4; kept++) result();
  assert.equal(collections, 3, "8 MiB more");
  // An age past the bound forgets too.
  let now = 0;
  const aging = new ResultStore({ maxAgeMs: 10, now: () => now, collect: () => collections++ });
  for (let kept = 0; kept < 2; kept++) aging.keep("dev", 10, [text("y".repeat(1024 * 1024))]);
  now = 100;
  aging.get("r1");
  assert.equal(collections, 4);
});
