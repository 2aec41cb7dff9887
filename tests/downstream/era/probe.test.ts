/** The probe's bound and its outcomes: how long a server gets to answer server/discover, and what its answer means. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Probe, PROBE_MS, probeTimeout } from "../../../src/downstream/era/probe.ts";
import type { JSONRPCMessage } from "../../../src/protocol/sdk.ts";

const ENVELOPE = { clientInfo: { name: "t", version: "1" }, clientCapabilities: {} };

test("probe: the bound is half the connect timeout, never more than PROBE_MS and never under 1 ms", () => {
  assert.equal(PROBE_MS, 2_000);
  // The default connect timeout (30 s): a 2025 server that ignores server/discover costs 2 s, not 15 s.
  assert.equal(probeTimeout(30_000), PROBE_MS);
  assert.equal(probeTimeout(4_001), PROBE_MS);
  assert.equal(probeTimeout(4_000), PROBE_MS);
  assert.equal(probeTimeout(3_999), 1_999);
  assert.equal(probeTimeout(200), 100);
  assert.equal(probeTimeout(1), 1);
  assert.equal(probeTimeout(0), 1);
});

test("probe: no answer within the bound is a legacy server, not proven (answered false); an error answer is proof", async () => {
  const silent = new Probe("p1");
  const started = performance.now();
  const outcome = await silent.run(() => Promise.resolve(), ENVELOPE, 50);
  assert.deepEqual(outcome, { era: "legacy", why: "no answer to server/discover within 50 ms", answered: false });
  assert.ok(performance.now() - started < 1_000, "gave up at its bound");

  const refused = new Probe("p2");
  const running = refused.run(() => Promise.resolve(), ENVELOPE, 5_000);
  assert.equal(refused.take({ jsonrpc: "2.0", id: "other", result: {} } as JSONRPCMessage), false, "not its answer");
  assert.equal(refused.take({ jsonrpc: "2.0", id: "p2", error: { code: -32601, message: "Method not found" } } as JSONRPCMessage), true);
  assert.deepEqual(await running, { era: "legacy", why: "server/discover answered: Method not found", answered: true });
});
