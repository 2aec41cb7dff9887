/** The memory store runs the store's contract, with a clock the tests move on; and it does not grow with keys never read again. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { MemoryStore } from "../../src/store/memory-store.ts";
import { storeContract } from "../helpers/store-contract.ts";

function clocked() {
  let now = 1_000_000;
  const store = new MemoryStore({ now: () => now });
  return { store, advance: (ms: number) => Promise.resolve(void (now += ms)) };
}

storeContract("MemoryStore", () => Promise.resolve(clocked()));

test("MemoryStore: keys that expired and are never read again are swept by later writes", async () => {
  const { store, advance } = clocked();
  for (let i = 0; i < 1_000; i++) await store.set(`old:${i}`, "x", 100);
  await store.set("long", "kept", 1_000_000);
  await advance(200);
  for (let i = 0; i < 400; i++) await store.set(`new:${i % 10}`, "y", 1_000_000);
  assert.ok(store.size <= 12, `expired keys swept: ${store.size} left`);
  assert.equal(await store.get("long"), "kept");
});
