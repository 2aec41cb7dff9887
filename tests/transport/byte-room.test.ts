/**
 * A peer's room (issue 38), on its own: what a stdio server's write queue and a remote server's
 * link both count in. Turns in order, a sender that gives up leaves the line, one larger than the
 * bound goes alone, the gate is held past the bound and let go at half with no one waiting.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ByteRoom } from "../../src/transport/byte-room.ts";
import { FlowGate } from "../../src/transport/flow-gate.ts";

test("byte room: past the bound senders wait in order, one that gives up leaves the line, and the gate is let go at half", () => {
  const gate = new FlowGate();
  const room = new ByteRoom(100, gate);
  const turns: string[] = [];
  const sender = (name: string, bytes: number) => () => (turns.push(name), room.take(bytes));
  const never = new AbortController().signal;
  room.whenRoom(sender("a", 250), never);
  assert.deepEqual(turns, ["a"], "one larger than the whole bound goes, alone");
  assert.equal(gate.held, true);
  const gaveUp = new AbortController();
  room.whenRoom(sender("b", 10), never);
  room.whenRoom(sender("c", 10), gaveUp.signal);
  room.whenRoom(sender("d", 10), never);
  assert.equal(room.waiting, 3);
  gaveUp.abort();
  assert.equal(room.waiting, 2);
  room.give(200);
  assert.deepEqual(turns, ["a", "b", "d"], "in order, without c");
  assert.equal(room.bytes, 70);
  assert.equal(gate.held, true, "held until the bytes are down to half of the bound");
  room.give(20);
  assert.equal(gate.held, false);
  room.whenRoom(sender("e", 10), never);
  assert.deepEqual(turns, ["a", "b", "d", "e"], "under the bound with no one waiting: at once");
});

test("byte room: clear drops the line and lets the gate go", () => {
  const gate = new FlowGate();
  const room = new ByteRoom(100, gate);
  room.take(150);
  let went = false;
  room.whenRoom(() => (went = true), new AbortController().signal);
  room.clear();
  room.give(150);
  assert.equal(went, false, "no one waits for a peer that is gone");
  assert.equal(gate.held, false);
});
