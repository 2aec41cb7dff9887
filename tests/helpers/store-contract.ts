/**
 * The contract of the store (src/store/store.ts): what every implementation must do, the memory one
 * or Redis. Call it with a name and a factory of fresh, empty stores, each with a way to let time
 * pass (a clock moved on, or a real wait); it adds its tests. Keys are made unique per test, so a
 * shared server (a Redis that other tests use) is no trouble.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Store } from "../../src/store/store.ts";

export interface StoreUnderTest {
  store: Store;
  /** Lets `ms` pass for the store's expiry. */
  advance(ms: number): Promise<void>;
  /** Ends what the factory started (the store is closed by the contract). */
  stop?(): Promise<void>;
}

/** The expiry the tests give: short, for a store whose time is real. */
const TTL = 300;

export function storeContract(name: string, fresh: () => Promise<StoreUnderTest>, skip?: string): void {
  const each = (title: string, body: (store: Store, advance: (ms: number) => Promise<void>, key: (part: string) => string) => Promise<void>) =>
    test(`${name}: ${title}`, { skip }, async () => {
      const made = await fresh();
      const prefix = `wb:{test-${crypto.randomUUID()}}:`;
      try {
        await body(made.store, made.advance, (part) => prefix + part);
      } finally {
        await made.store.close();
        await made.stop?.();
      }
    });

  each("a value is there until it expires; set again, it lives on", async (store, advance, key) => {
    assert.equal(await store.get(key("a")), undefined);
    await store.set(key("a"), "one", TTL);
    assert.equal(await store.get(key("a")), "one");
    await store.set(key("a"), "two", TTL * 10);
    await advance(TTL * 2);
    assert.equal(await store.get(key("a")), "two");
    await store.set(key("b"), "short", TTL);
    await advance(TTL * 2);
    assert.equal(await store.get(key("b")), undefined, "expired");
  });

  each("add puts a value only where there is none; take gives it once", async (store, _advance, key) => {
    assert.equal(await store.add(key("once"), "first", TTL * 10), true);
    assert.equal(await store.add(key("once"), "second", TTL * 10), false);
    assert.equal(await store.get(key("once")), "first");
    const takers = await Promise.all([store.take(key("once")), store.take(key("once")), store.take(key("once"))]);
    assert.deepEqual(takers.filter((value) => value !== undefined), ["first"], "of three takers, one gets it");
    assert.equal(await store.get(key("once")), undefined);
  });

  each("delete removes keys; touch moves an expiry on, and says when there was nothing", async (store, advance, key) => {
    await store.set(key("x"), "1", TTL * 10);
    await store.set(key("y"), "2", TTL * 10);
    await store.delete(key("x"), key("y"), key("never"));
    assert.equal(await store.get(key("x")), undefined);
    assert.equal(await store.touch(key("x"), TTL), false);
    await store.set(key("z"), "3", TTL);
    assert.equal(await store.touch(key("z"), TTL * 10), true);
    await advance(TTL * 2);
    assert.equal(await store.get(key("z")), "3", "touched: it lives on");
  });

  each("a counter starts at 1, counts every increment once, and expires", async (store, advance, key) => {
    const counts = await Promise.all(Array.from({ length: 20 }, () => store.increment(key("n"), TTL)));
    assert.deepEqual(counts.sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => i + 1));
    await advance(TTL * 2);
    assert.equal(await store.increment(key("n"), TTL), 1, "expired: it starts again");
  });

  each("fields of one key: set, read whole, removed one by one, and gone with the key's expiry", async (store, advance, key) => {
    assert.deepEqual(await store.fields(key("h")), {});
    await store.setField(key("h"), "dev", "1", TTL);
    await store.setField(key("h"), "ops", "2", TTL);
    assert.deepEqual(await store.fields(key("h")), { dev: "1", ops: "2" });
    await store.deleteField(key("h"), "dev");
    assert.deepEqual(await store.fields(key("h")), { ops: "2" });
    await advance(TTL * 2);
    assert.deepEqual(await store.fields(key("h")), {});
  });

  each("publish reaches every subscriber of the channel, none of another, none after its stop", async (store, _advance, key) => {
    const heard: string[] = [];
    const other: string[] = [];
    const stopA = await store.subscribe(key("feed"), (message) => heard.push(`a:${message}`));
    const stopB = await store.subscribe(key("feed"), (message) => heard.push(`b:${message}`));
    const stopOther = await store.subscribe(key("elsewhere"), (message) => other.push(message));
    await store.publish(key("feed"), "one");
    await until(() => heard.length === 2);
    await stopA();
    await store.publish(key("feed"), "two");
    await until(() => heard.length === 3);
    assert.deepEqual(heard.sort(), ["a:one", "b:one", "b:two"]);
    assert.deepEqual(other, []);
    await stopB();
    await stopOther();
  });

  each("values are kept byte for byte: any text, long or short", async (store, _advance, key) => {
    const texts = ["", "\u0000 nul", "é 你好 😀 \ud800 lone", "x".repeat(1 << 20), JSON.stringify({ a: [1, "b"] })];
    for (const [index, text] of texts.entries()) await store.set(key(`t${index}`), text, TTL * 10);
    for (const [index, text] of texts.entries()) {
      const back = await store.get(key(`t${index}`));
      // A lone surrogate is not UTF-8: a store that speaks bytes may keep it as U+FFFD, as TextEncoder writes it.
      const asUtf8 = new TextDecoder().decode(new TextEncoder().encode(text));
      assert.ok(back === text || back === asUtf8, `text ${index} kept`);
    }
  });

  each("a closed store refuses what is asked of it", async (store, _advance, key) => {
    await store.close();
    await assert.rejects(store.get(key("a")));
  });
}

/** Waits until `done` (a message is heard on another turn, or from another connection), for at most 5 s. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(done(), "within 5 s");
}
