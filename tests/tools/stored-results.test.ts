/**
 * A session's cut results in a store shared by replicas (issue 48): the same bounds as one
 * process's ResultStore (bytes, the least recently read going first; age since the last read), held
 * across replicas; ids never given twice, not even after the session's end; what a client passes as
 * an id is never made into a key; a replica's parsed copy is never served once the store let it go.
 * Two StoredResults of one session over one shared MemoryStore are two replicas.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { MemoryStore } from "../../src/store/memory-store.ts";
import { MAX_AGE_MS } from "../../src/tools/result-store.ts";
import { storedResultKeys, StoredResults } from "../../src/tools/stored-results.ts";

const text = (value: string) => ({ type: "text" as const, text: value });

/** A shared store and two replicas' results of session `s`, on one clock that the test moves. */
function replicas(maxBytes = 1_000) {
  const clock = { now: 1_000_000 };
  const now = () => clock.now;
  const store = new MemoryStore({ now, shared: true });
  const limits = { maxBytes, now };
  return { clock, store, here: new StoredResults(store, "s", limits), there: new StoredResults(store, "s", limits) };
}

test("stored results: past the byte bound the least recently read go first, whichever replica read or kept them", async () => {
  const { clock, here, there } = replicas();
  const a = await here.keep("dev", 10, [text("a".repeat(200))]);
  clock.now += 1_000;
  const b = await there.keep("dev", 10, [text("b".repeat(200))]);
  clock.now += 1_000;
  assert.equal((await there.get(a.id))?.items[0]?.type, "text", "read on the other replica: now the most recently read");
  clock.now += 1_000;
  const c = await here.keep("dev", 10, [text("c".repeat(200))]);
  assert.equal(await here.get(b.id), undefined, "the least recently read went");
  assert.equal(await there.get(b.id), undefined);
  assert.deepEqual((await there.get(a.id))?.items, [text("a".repeat(200))]);
  assert.deepEqual((await there.get(c.id))?.items, [text("c".repeat(200))]);
});

test("stored results: a result not read for 30 minutes is gone; a read on any replica restarts its age", async () => {
  const { clock, here, there } = replicas();
  const kept = await here.keep("dev", 10, [text("kept")]);
  clock.now += MAX_AGE_MS - 60_000;
  assert.ok(await there.get(kept.id), "read on the other replica before the age bound");
  clock.now += MAX_AGE_MS - 60_000;
  assert.ok(await here.get(kept.id), "its age restarted at the other replica's read");
  clock.now += MAX_AGE_MS + 1;
  assert.equal(await here.get(kept.id), undefined);
  assert.equal(await there.get(kept.id), undefined);
});

test("stored results: one result over the whole bound keeps its start and says how much it lost", async () => {
  const { there, here } = replicas();
  const kept = await here.keep("dev", 10, [text("x".repeat(600))]);
  const read = await there.get(kept.id);
  assert.deepEqual({ dropped: read?.dropped, starts: read?.starts, bytes: read?.bytes }, { dropped: 100, starts: [0, 500], bytes: 1_000 });
});

test("stored results: what a client passes as an id is never made into a key: the store is not asked", async () => {
  const { store, here } = replicas();
  const kept = await here.keep("dev", 10, [text("kept")]);
  const asked: string[] = [];
  for (const method of ["get", "touch", "setField"] as const) {
    const real = store[method].bind(store) as (...args: unknown[]) => Promise<unknown>;
    Object.defineProperty(store, method, { value: (...args: unknown[]) => (asked.push(String(args[0])), real(...args)) });
  }
  for (const id of ["", "r0", "r01", "x1", `${kept.id}}:x`, `${kept.id}:x`, "r1 ", "../r1", "r".padEnd(40, "9")]) {
    assert.equal(await here.get(id), undefined, id);
  }
  assert.deepEqual(asked, []);
  assert.ok(await here.get(kept.id));
  assert.ok(asked.length > 0, "a well-formed id is looked up");
});

test("stored results: a replica's parsed copy is not served once another replica pushed the result out", async () => {
  const { here, there } = replicas();
  const first = await here.keep("dev", 10, [text("a".repeat(400))]);
  await there.keep("dev", 10, [text("b".repeat(400))]);
  assert.equal(await here.get(first.id), undefined);
});

test("stored results: an end removes every result's key; the ids go on after it, so an old id never names a new result", async () => {
  const { store, here } = replicas(64 * 1024);
  const ids = [(await here.keep("dev", 10, [text("one")])).id, (await here.keep("dev", 10, [text("two")])).id];
  const keys = await storedResultKeys(store, "s");
  assert.equal(keys.length, 3, "the index and the two results");
  await store.delete(...keys);
  assert.equal(store.size, 1, "only the counter is left");
  const again = new StoredResults(store, "s");
  const next = await again.keep("dev", 10, [text("three")]);
  assert.ok(!ids.includes(next.id), `${next.id} was given before`);
  assert.equal(await here.get(ids[0]!), undefined);
});

test("stored results: a value the store gives back is checked like input: a poisoned one is no result, never a crash, and its positions are counted again", async () => {
  const { store, here } = replicas();
  const key = "wb:{s}:result:r7";
  const poisons = [
    "not json", "null", "[]", "{}", '{"toolbox":"dev","limit":10,"dropped":0,"items":5}',
    '{"toolbox":"dev","limit":10,"dropped":0,"items":[{"type":"text","text":5}]}', '{"toolbox":"dev","limit":10,"dropped":0,"items":[null]}',
    '{"toolbox":"dev","limit":-1,"dropped":0,"items":[]}', '{"toolbox":"dev","limit":"10","dropped":0,"items":[]}',
    '{"toolbox":"","limit":10,"dropped":0,"items":[]}', '{"toolbox":"dev","limit":10,"dropped":0.5,"items":[]}',
    '{"toolbox":"dev","limit":0,"dropped":0,"items":[]}', '{"limit":10,"dropped":0,"items":[]}',
  ];
  for (const poison of poisons) {
    await store.set(key, poison, 60_000);
    assert.equal(await here.get("r7"), undefined, poison);
  }
  await store.set(key, '{"toolbox":"dev","limit":10,"dropped":0,"items":[{"type":"text","text":"abc"}],"starts":[0,999999],"bytes":1}', 60_000);
  const read = await here.get("r7");
  assert.deepEqual({ starts: read?.starts, bytes: read?.bytes }, { starts: [0, 3], bytes: 6 });
});

test("stored results: keeps of one session at the same time stay within the byte bound together", async () => {
  const { here, there } = replicas();
  const kept = await Promise.all([here, there, here, there].map((replica, index) => replica.keep("dev", 10, [text(String(index).repeat(200))])));
  let held = 0;
  for (const one of kept) held += (await here.get(one.id))?.bytes ?? 0;
  assert.ok(held <= 1_000, `${held} bytes held`);
  assert.ok(held > 0);
});

test("stored results: a result read page after page on one replica stays past 30 minutes from its keeping (its reads are told to the index)", async () => {
  const { clock, store, here } = replicas(64 * 1024);
  const kept = await here.keep("dev", 10, [text("paged")]);
  for (let read = 0; read < 4; read++) {
    clock.now += MAX_AGE_MS / 2;
    assert.ok(await here.get(kept.id), `read ${read}`);
  }
  assert.deepEqual(Object.keys(await store.fields("wb:{s}:results")), [kept.id], "still counted in the session's bound");
  await here.keep("dev", 10, [text("another")]);
  assert.ok(await here.get(kept.id), "not taken for expired by the next keep");
});

test("stored results: a stored value larger than the bound is no result", async () => {
  const { store, here } = replicas();
  await store.set("wb:{s}:result:r9", JSON.stringify({ toolbox: "dev", limit: 10, dropped: 0, items: [text("x".repeat(600))] }), 60_000);
  assert.equal(await here.get("r9"), undefined);
});

test("stored results: a store that cannot be reached costs the rest of a cut result, never the call; read_result says to try again", async () => {
  const { flakyStore } = await import("../helpers/flaky-store.ts");
  const { pageResult } = await import("../../src/tools/page-result.ts");
  const flaky = flakyStore(new MemoryStore({ shared: true }));
  const results = new StoredResults(flaky.store, "s");
  flaky.setDown(true);
  const page = await pageResult({ content: [text("word ".repeat(2_000))] }, results, 100, "dev");
  const note = (page.content.at(-1) as { text: string }).text;
  assert.match(note, /^This result is over maxResultTokens \(100\)\. Positions 0 to \d+ of 10000 shown; the rest could not be kept to read on/);
  assert.ok((page.content[0] as { text: string }).text.startsWith("word word"));
  await assert.rejects(results.get("r1"));
});
