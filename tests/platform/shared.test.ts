/** The runtime-free pieces the adapters share: tree kill and the parent watch. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { signalProcessGroup, type SignalSender, windowsTreeKill } from "../../src/platform/tree-kill.ts";
import { ppidFromStat, watchParent } from "../../src/platform/parent-watch.ts";

class Gone extends Error {}

/** A sender that records each target and fails for the pids it is told are gone. */
function fakeSender(gone: number[], failure?: Error) {
  const sent: number[] = [];
  const sender: SignalSender = {
    send(target) {
      sent.push(target);
      if (failure) throw failure;
      if (gone.includes(target)) throw new Gone();
    },
    isGone: (error) => error instanceof Gone,
  };
  return { sender, sent };
}

test("tree kill: windowsTreeKill ends the whole tree by force", () => {
  assert.deepEqual(windowsTreeKill(4321), { command: "taskkill", args: ["/pid", "4321", "/t", "/f"] });
});

test("tree kill: the group is signalled, not the child alone", () => {
  const { sender, sent } = fakeSender([]);
  signalProcessGroup(42, "SIGTERM", sender);
  assert.deepEqual(sent, [-42]);
});

test("tree kill: without its group the child alone is signalled; without both, nothing throws", () => {
  const groupGone = fakeSender([-42]);
  signalProcessGroup(42, "SIGTERM", groupGone.sender);
  assert.deepEqual(groupGone.sent, [-42, 42]);
  const allGone = fakeSender([-42, 42]);
  assert.doesNotThrow(() => signalProcessGroup(42, "SIGKILL", allGone.sender));
});

test("tree kill: once the child has exited only its group is signalled, never its reusable pid", () => {
  const { sender, sent } = fakeSender([-42]);
  signalProcessGroup(42, "SIGKILL", sender, true);
  assert.deepEqual(sent, [-42]);
});

test("tree kill: a failure other than 'no such process' is thrown", () => {
  const denied = new Error("EPERM");
  assert.throws(() => signalProcessGroup(42, "SIGTERM", fakeSender([], denied).sender), denied);
});

test("parent watch: ppidFromStat reads past a command name with spaces and parentheses", () => {
  assert.equal(ppidFromStat("123 (a) b (c) S 77 123 123 0 -1"), 77);
  assert.equal(ppidFromStat("garbage"), undefined);
});

test("parent watch: a changed parent pid means the parent has gone", () => {
  let current = 10;
  const alive = watchParent(10, { currentPpid: () => current, exists: () => assert.fail("no probe") });
  assert.equal(alive(), true);
  current = 1;
  assert.equal(alive(), false);
});

test("parent watch: where the parent pid is unknown, the original parent is probed", () => {
  const probed: number[] = [];
  let exists = true;
  const alive = watchParent(10, { currentPpid: () => undefined, exists: (pid) => (probed.push(pid), exists) });
  assert.equal(alive(), true);
  exists = false;
  assert.equal(alive(), false);
  assert.deepEqual(probed, [10, 10]);
});
