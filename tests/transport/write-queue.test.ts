/**
 * The write queue's turns and withdrawals (issue 38): past the bound, senders wait in order and
 * hold the gate; one that gives up leaves the line; a request still queued is taken back whole,
 * and one whose writing has begun is not.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { FlowGate } from "../../src/transport/flow-gate.ts";
import { WriteQueue } from "../../src/transport/write-queue.ts";

/** A peer that takes each write only when told to. */
function slowPeer() {
  const written: number[] = [];
  const waiting: (() => void)[] = [];
  const writable = new WritableStream<Uint8Array>({
    write: (chunk) => new Promise<void>((resolve) => waiting.push(() => (written.push(chunk.length), resolve()))),
  });
  return {
    writer: writable.getWriter(),
    written,
    /** Lets the peer take the write under way, and waits for the queue to go on. */
    async take() {
      for (let i = 0; i < 20 && waiting.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 1));
      waiting.shift()?.();
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 1));
    },
  };
}

const bytes = (n: number) => new Uint8Array(n);

test("write queue: past the bound, senders wait their turn in order and hold the gate; one that gives up leaves the line", async () => {
  const peer = slowPeer();
  const gate = new FlowGate();
  const queue = new WriteQueue(peer.writer, { backlog: { gate, highWaterMark: 100_000 }, written: () => {}, failed: () => {} });
  const turns: string[] = [];
  const send = (name: string, size: number) => () => {
    turns.push(name);
    queue.push([bytes(size)], undefined, 0, name);
    void queue.flush();
  };
  const never = new AbortController().signal;
  queue.whenRoom(send("a", 150_000), never);
  assert.deepEqual(turns, ["a"], "under the bound: at once");
  const gaveUp = new AbortController();
  queue.whenRoom(send("b", 150_000), never);
  queue.whenRoom(send("c", 150_000), gaveUp.signal);
  queue.whenRoom(send("d", 150_000), never);
  assert.deepEqual(turns, ["a"]);
  assert.equal(gate.held, true, "waiting senders hold the gate");
  gaveUp.abort();
  await peer.take();
  assert.deepEqual(turns, ["a", "b"], "one turn at a time, in order; c left the line");
  assert.equal(queue.bytes, 150_000);
  await peer.take();
  assert.deepEqual(turns, ["a", "b", "d"]);
  await peer.take();
  assert.equal(queue.bytes, 0);
  assert.equal(gate.held, false);
});

test("write queue: a sender's signal given as a function is made only when the sender must wait", async () => {
  const peer = slowPeer();
  const queue = new WriteQueue(peer.writer, { backlog: { highWaterMark: 100_000 }, written: () => {}, failed: () => {} });
  const turns: string[] = [];
  const made: string[] = [];
  const send = (name: string) => () => {
    turns.push(name);
    queue.push([bytes(150_000)], undefined, 0, name);
    void queue.flush();
  };
  const gaveUp = new AbortController();
  const source = (name: string, signal = new AbortController().signal) => () => (made.push(name), signal);
  queue.whenRoom(send("a"), source("a"));
  assert.deepEqual([turns, made], [["a"], []], "a sender with room at once makes no signal");
  queue.whenRoom(send("b"), source("b", gaveUp.signal));
  queue.whenRoom(send("c"), source("c"));
  assert.deepEqual(made, ["b", "c"], "a waiting sender's signal is made once");
  gaveUp.abort();
  await peer.take();
  assert.deepEqual(turns, ["a", "c"], "b left the line when its signal aborted");
  await peer.take();
});

test("write queue: a request still queued is withdrawn whole; one being written is not", async () => {
  const peer = slowPeer();
  const gate = new FlowGate();
  const queue = new WriteQueue(peer.writer, { backlog: { gate, highWaterMark: 100_000 }, written: () => {}, failed: () => {} });
  const newline = new Uint8Array([10]);
  queue.push([bytes(80_000), newline], undefined, 0, "x");
  void queue.flush();
  queue.push([bytes(80_000), newline], undefined, 0, "y");
  assert.equal(gate.held, true);
  await new Promise((resolve) => setTimeout(resolve, 1));
  assert.equal(queue.withdraw("x"), false, "x's writing has begun");
  assert.equal(queue.withdraw("y"), true);
  assert.equal(queue.withdraw("y"), false, "already gone");
  assert.equal(queue.bytes, 80_001);
  await peer.take();
  await peer.take();
  assert.deepEqual(peer.written, [80_000, 1], "x written whole, nothing of y");
  assert.equal(gate.held, false);
});

test("write queue: a flush resolves once its own frames are written, while others keep sending to a slow peer", async () => {
  const peer = slowPeer();
  const queue = new WriteQueue(peer.writer, { written: () => {}, failed: () => {} });
  const settled: string[] = [];
  const send = (name: string) => {
    queue.push([bytes(40_000)], undefined, 0, name);
    void queue.flush().then(() => settled.push(name));
  };
  // Each frame is written alone (32 KiB or more); a new one comes before the last is taken: the
  // queue never runs dry. A sender waiting for the queue to run dry would hold what its waiting
  // keeps (a call's whole result) until the traffic stops (issue 38).
  send("a");
  send("b");
  for (const next of ["c", "d", "e"]) {
    await peer.take();
    send(next);
  }
  assert.deepEqual(settled, ["a", "b", "c"], "each sender goes on once its frames are written");
  assert.equal(queue.bytes, 80_000);
  await peer.take();
  await peer.take();
  assert.deepEqual(settled, ["a", "b", "c", "d", "e"]);
});

test("write queue: a failed write rejects every flush waiting, and a withdrawn request's flush resolves", async () => {
  const failing = new WritableStream<Uint8Array>({ write: () => Promise.reject(new Error("Peer gone")) });
  const failures: unknown[] = [];
  const queue = new WriteQueue(failing.getWriter(), { written: () => {}, failed: (error) => failures.push(error) });
  queue.push([bytes(10)], undefined);
  const first = queue.flush();
  queue.push([bytes(10)], undefined);
  const second = queue.flush();
  await assert.rejects(first, /Peer gone/);
  await assert.rejects(second, /Peer gone/);
  assert.equal(failures.length, 1);

  const peer = slowPeer();
  const slow = new WriteQueue(peer.writer, { written: () => {}, failed: () => {} });
  slow.push([bytes(40_000)], undefined, 0, "x");
  const x = slow.flush();
  slow.push([bytes(40_000)], undefined, 0, "y");
  let yDone = false;
  const y = slow.flush().then(() => yDone = true);
  await new Promise((resolve) => setTimeout(resolve, 1));
  assert.equal(slow.withdraw("y"), true);
  await peer.take();
  await x;
  await y;
  assert.equal(yDone, true, "nothing of y is left to write");
});

test("write queue: messages sent in the same round of microtasks go in one write, the first not alone (issue 42)", async () => {
  const chunks: number[] = [];
  const writable = new WritableStream<Uint8Array>({ write: (chunk) => void chunks.push(chunk.length) });
  const answered: unknown[] = [];
  const queue = new WriteQueue(writable.getWriter(), { written: (answers) => answered.push(...answers), failed: () => {} });
  // As the answers to one read's requests arrive: each a step of the same depth after the other.
  const sends = [1, 2, 3].map((id) => Promise.resolve().then(() => (queue.push([bytes(10 * id)], id), queue.flush())));
  await Promise.all(sends);
  assert.deepEqual(chunks, [60], "one write of the three");
  assert.deepEqual(answered, [1, 2, 3]);
});

test("write queue: a flush on an empty queue during an in-flight batch waits for it; clear() mid-batch frees later flushes after it", async () => {
  const peer = slowPeer();
  const queue = new WriteQueue(peer.writer, { written: () => {}, failed: () => {} });
  queue.push([bytes(10)], undefined);
  let first = false;
  void queue.flush().then(() => first = true);
  await new Promise((resolve) => setTimeout(resolve, 5));
  // The batch is in flight, the queue's array is empty.
  let empty = false;
  void queue.flush().then(() => empty = true);
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(empty, false, "the frame in flight is not written yet");
  queue.push([bytes(40_000)], undefined);
  let later = false;
  void queue.flush().then(() => later = true);
  queue.clear();
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(later, false, "the batch in flight still goes before");
  await peer.take();
  assert.deepEqual([first, empty, later], [true, true, true]);
  assert.equal(queue.bytes, 0);
  assert.equal(await Promise.race([queue.flush().then(() => "resolved"), new Promise((resolve) => setTimeout(resolve, 5)).then(() => "pending")]), "resolved", "an empty, idle queue flushes at once");
});

test("write queue: clear() on a queue with no write under way resolves the flushes waiting on what it drops", async () => {
  const chunks: number[] = [];
  const writable = new WritableStream<Uint8Array>({ write: (chunk) => void chunks.push(chunk.length) });
  const queue = new WriteQueue(writable.getWriter(), { written: () => {}, failed: () => {} });
  queue.push([bytes(10)], 1);
  const waiting = queue.flush();
  // Dropped before the write loop took anything: no write will ever settle this flush.
  queue.clear();
  const state = await Promise.race([waiting.then(() => "resolved"), new Promise((resolve) => setTimeout(resolve, 50)).then(() => "pending")]);
  assert.equal(state, "resolved", "the peer is going: nothing waits for what was dropped");
  assert.deepEqual(chunks, [], "nothing was written");
  assert.equal(queue.bytes, 0);
});
