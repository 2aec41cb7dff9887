/**
 * The contract of the state seam (src/upstream/session-state.ts) over any store: what a session
 * keeps is found by its key, on this replica and on another one over the same store (two
 * SessionStates on one store are two replicas); one key never sees another's; a release keeps it
 * for the other replicas, an end removes it. Cut results reach the other replica when the store is
 * shared (Redis, or a MemoryStore made `shared`), and stay in their process when it is not. Call it
 * with a name and a factory of fresh stores.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Store } from "../../src/store/store.ts";
import { SessionStates } from "../../src/upstream/session-state.ts";

const TEXT = (text: string) => [{ type: "text" as const, text }];
const KEY = JSON.stringify(["dev", "s", "delete_item"]);

export function sessionStateContract(name: string, fresh: () => Promise<Store>, skip?: string): void {
  type Body = (replicas: [SessionStates, SessionStates], key: (part: string) => string, store: Store) => Promise<void>;
  const each = (title: string, body: Body) =>
    test(`${name}: ${title}`, { skip }, async () => {
      const store = await fresh();
      const prefix = crypto.randomUUID();
      try {
        await body([new SessionStates(store, () => 60_000), new SessionStates(store, () => 60_000)], (part) => `${prefix}-${part}`, store);
      } finally {
        await store.close();
      }
    });

  each("a key's state is empty at first, then found again, on this replica and on another", async ([here, there], key) => {
    const first = here.of(key("a"));
    assert.equal(await first.results.get("r1"), undefined);
    assert.equal(await first.approvals.remembered(KEY), false);
    assert.equal(await first.toolboxes.has("dev"), false);
    const kept = await first.results.keep("dev", 100, TEXT("kept"));
    await first.approvals.remember(KEY);
    await first.toolboxes.add("dev");
    const again = here.of(key("a"));
    assert.deepEqual((await again.results.get(kept.id))?.items, TEXT("kept"));
    for (const replica of [here, there]) {
      assert.equal(await replica.of(key("a")).approvals.remembered(KEY), true);
      assert.equal(await replica.of(key("a")).toolboxes.has("dev"), true);
    }
  });

  each("one key never sees another's approvals, retries or toolboxes; a retry is taken once, by one replica", async ([here, there], key) => {
    const alice = here.of(key("alice"));
    await alice.approvals.remember(KEY);
    await alice.approvals.allowRetry(KEY, "state-1", { id: 1 });
    await alice.toolboxes.add("dev");
    const bob = here.of(key("bob"));
    assert.equal(await bob.approvals.remembered(KEY), false);
    assert.equal(await bob.approvals.takeRetry(KEY, "state-1", { id: 1 }), false);
    assert.equal(await bob.toolboxes.has("dev"), false);
    const takers = await Promise.all([here, there, here, there].map((replica) => replica.of(key("alice")).approvals.takeRetry(KEY, "state-1", { id: 1 })));
    assert.deepEqual(takers.filter(Boolean), [true], "alice's retry, taken once across replicas");
  });

  each("a cut result kept on one replica is read on another when the store is shared; ids never repeat across replicas", async ([here, there], key, store) => {
    if (!store.shared) {
      // A store of one process's own: its results stay in the process that kept them.
      const kept = await here.of(key("a")).results.keep("dev", 100, TEXT("kept"));
      assert.equal(await there.of(key("a")).results.get(kept.id), undefined);
      return;
    }
    const ids = new Set<string>();
    for (let round = 0; round < 3; round++) {
      for (const [replica, other] of [[here, there], [there, here]]) {
        const kept = await replica.of(key("a")).results.keep("dev", 100, TEXT(`kept ${round}`));
        assert.ok(!ids.has(kept.id), `id ${kept.id} given twice`);
        ids.add(kept.id);
        const read = await other.of(key("a")).results.get(kept.id);
        assert.deepEqual(read && { toolbox: read.toolbox, limit: read.limit, items: read.items }, { toolbox: "dev", limit: 100, items: TEXT(`kept ${round}`) });
      }
    }
    assert.equal(await here.of(key("b")).results.get([...ids][0]!), undefined, "another key's results are not this one's");
  });

  each("a release keeps the state for other replicas; an end removes it everywhere", async ([here, there], key, store) => {
    const kept = await here.of(key("a")).results.keep("dev", 100, TEXT("kept"));
    here.release(key("a"));
    assert.equal((await there.of(key("a")).results.get(kept.id))?.id, store.shared ? kept.id : undefined);
    await there.end(key("a"));
    assert.equal(await here.of(key("a")).results.get(kept.id), undefined);
    assert.equal(await there.of(key("a")).results.get(kept.id), undefined);
    await here.of(key("a")).approvals.remember(KEY);
    here.release(key("a"));
    assert.equal(await there.of(key("a")).approvals.remembered(KEY), true);
    await there.end(key("a"));
    assert.equal(await here.of(key("a")).approvals.remembered(KEY), false);
    assert.equal(await here.of(key("a")).toolboxes.has("dev"), false);
    await here.end(key("never-seen"));
  });
}
