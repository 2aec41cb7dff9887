import { test } from "node:test";
import assert from "node:assert/strict";
import { FlowGate } from "../../src/transport/flow-gate.ts";

test("FlowGate: stays held until every holder has released it", async () => {
  const gate = new FlowGate();
  const client = {};
  const server = {};
  gate.hold(client);
  gate.hold(server);
  const passage = gate.passage();
  let passed = false;
  void passage!.then(() => (passed = true));
  gate.release(client);
  await Promise.resolve();
  assert.equal(passed, false, "opened while a server still held it");
  assert.equal(gate.held, true);
  gate.release(client);
  assert.equal(gate.held, true, "a second release by the same holder opened it");
  gate.release(server);
  await passage;
  assert.equal(gate.held, false);
  assert.equal(gate.passage(), undefined);
});
