/** The runtime-free pieces the adapters share: tree kill, the parent watch, a compiled executable's main. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { killTreeOnWindows, signalProcessGroup, type SignalSender, windowsTreeKill } from "../../src/platform/tree-kill.ts";
import { ppidFromStat, watchParent } from "../../src/platform/parent-watch.ts";
import { isCompiledMain } from "../../src/platform/compiled-main.ts";

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

/** A taskkill that ends as told (an exit code, never, or not even starting), and a record of what was done. */
function fakeKiller(taskkill: "cannot start" | "never ends" | number) {
  const done: string[] = [];
  const killer = {
    run(command: string, args: string[]) {
      if (taskkill === "cannot start") throw new Error("ENOENT");
      done.push([command, ...args].join(" "));
      return taskkill === "never ends" ? new Promise<number>(() => {}) : Promise.resolve(taskkill);
    },
    killChild: () => void done.push("child alone"),
  };
  return { killer, done };
}

test("tree kill on Windows: taskkill that succeeds is all it takes", async () => {
  const { killer, done } = fakeKiller(0);
  await killTreeOnWindows(42, killer);
  assert.deepEqual(done, ["taskkill /pid 42 /t /f"]);
});

test("tree kill on Windows: taskkill that fails (Wine's rejects /t; access denied) ends the child alone", async () => {
  const { killer, done } = fakeKiller(1);
  await killTreeOnWindows(42, killer);
  assert.deepEqual(done, ["taskkill /pid 42 /t /f", "child alone"]);
});

test("tree kill on Windows: taskkill that cannot start, or does not end by the deadline, ends the child alone", async () => {
  const missing = fakeKiller("cannot start");
  await killTreeOnWindows(42, missing.killer);
  assert.deepEqual(missing.done, ["child alone"]);
  const hung = fakeKiller("never ends");
  await killTreeOnWindows(42, hung.killer, 50);
  assert.deepEqual(hung.done, ["taskkill /pid 42 /t /f", "child alone"]);
});

test("compiled main: Bun's virtual paths, with either slash on Windows, and no real file", () => {
  for (const main of ["/$bunfs/root/mcp-workbench", "B:/~BUN/root/mcp-workbench.exe", "B:\\~BUN\\root\\mcp-workbench.exe"]) {
    assert.equal(isCompiledMain(main), true, main);
  }
  for (const main of ["/home/me/src/main.ts", "C:\\work\\src\\main.ts", "C:/work/~BUNDLE/main.ts"]) {
    assert.equal(isCompiledMain(main), false, main);
  }
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
