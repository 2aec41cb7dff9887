/** What each downstream initialize declares: exactly what the client in front declared, for what we relay. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mirroredCapabilities } from "../../src/downstream/relay.ts";

const client = {
  elicitation: { form: { applyDefaults: true }, url: {} },
  sampling: { tools: {} },
  roots: { listChanged: true },
  extensions: { "io.example/feature": {} },
  experimental: { other: {} },
};

test("mirrored capabilities: elicitation with its modes, sampling, roots and extensions, nothing else", () => {
  const { experimental: _, ...relayed } = client;
  assert.deepEqual(mirroredCapabilities(client, true), relayed);
});

test('mirrored capabilities: "roots": false leaves roots out; a client that declared nothing (or none yet) gets nothing', () => {
  assert.equal("roots" in mirroredCapabilities(client, false), false);
  assert.deepEqual(mirroredCapabilities({}, true), {});
  assert.deepEqual(mirroredCapabilities(undefined, true), {});
  assert.deepEqual(mirroredCapabilities({ elicitation: {} }, true), { elicitation: {} });
});
