/**
 * The contract of the state seam (src/upstream/session-state.ts): what any implementation of
 * SessionStates must do, the in-memory one or a store shared by replicas. Call it with a name and
 * a factory of fresh, empty stores; it adds its tests.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { SessionStates } from "../../src/upstream/session-state.ts";
import type { OpenToolbox } from "../../src/toolboxes/registry.ts";

const TEXT = (text: string) => [{ type: "text" as const, text }];
const KEY = JSON.stringify(["dev", "s", "delete_item"]);

export function sessionStateContract(name: string, fresh: () => SessionStates | Promise<SessionStates>): void {
  test(`${name}: a key's state is empty at first, then the same state each time it is asked for`, async () => {
    const states = await fresh();
    assert.equal(states.size, 0);
    const first = states.of("a");
    assert.equal(first.results.get("r1"), undefined);
    assert.equal(await first.approvals.remembered(KEY), false);
    assert.equal(first.toolboxes.size, 0);
    const kept = first.results.keep("dev", 100, TEXT("kept"));
    await first.approvals.remember(KEY);
    first.toolboxes.set("dev", { name: "dev" } as OpenToolbox);
    const again = states.of("a");
    assert.deepEqual(again.results.get(kept.id)?.items, TEXT("kept"));
    assert.equal(await again.approvals.remembered(KEY), true);
    assert.deepEqual([...again.toolboxes.keys()], ["dev"]);
    assert.equal(states.size, 1);
  });

  test(`${name}: one key never sees another's results, approvals or toolboxes`, async () => {
    const states = await fresh();
    const alice = states.of("alice");
    const kept = alice.results.keep("dev", 100, TEXT("alice's"));
    await alice.approvals.remember(KEY);
    await alice.approvals.allowRetry(KEY, "state-1", { id: 1 });
    alice.toolboxes.set("dev", { name: "dev" } as OpenToolbox);
    const bob = states.of("bob");
    assert.equal(bob.results.get(kept.id), undefined);
    assert.equal(await bob.approvals.remembered(KEY), false);
    assert.equal(await bob.approvals.takeRetry(KEY, "state-1", { id: 1 }), false);
    assert.equal(bob.toolboxes.size, 0);
    assert.equal(states.size, 2);
    assert.equal(await alice.approvals.takeRetry(KEY, "state-1", { id: 1 }), true, "alice's retry is still hers");
  });

  test(`${name}: an ended key's state is gone; the next ask starts empty`, async () => {
    const states = await fresh();
    const kept = states.of("a").results.keep("dev", 100, TEXT("kept"));
    await states.of("a").approvals.remember(KEY);
    states.of("b");
    states.end("a");
    assert.equal(states.size, 1);
    assert.equal(states.of("a").results.get(kept.id), undefined);
    assert.equal(await states.of("a").approvals.remembered(KEY), false);
    states.end("never-seen");
    assert.equal(states.size, 2);
  });
}
