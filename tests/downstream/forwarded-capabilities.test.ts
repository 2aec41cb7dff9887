/** What each downstream initialize declares: exactly what the client in front declared, for what we relay. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mirroredCapabilities, withExtensionsOf } from "../../src/downstream/forwarded-capabilities.ts";

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

test("mirrored capabilities are normalised: what no server acts on leaves the key, so it starts no process of its own (issue 38)", () => {
  const same = [
    { elicitation: {}, sampling: {}, roots: { listChanged: true } },
    { elicitation: { form: {} }, sampling: { note: 1 }, roots: { listChanged: true, other: 2 }, experimental: { x: {} } },
    { elicitation: { form: { other: true }, extra: 3 }, sampling: { odd: {} }, roots: { listChanged: true }, tasks: { list: {} } },
  ];
  for (const capabilities of same) {
    assert.deepEqual(mirroredCapabilities(capabilities as never, true), { elicitation: {}, sampling: {}, roots: { listChanged: true } });
  }
  assert.deepEqual(mirroredCapabilities({ elicitation: { url: {} }, roots: { listChanged: false } } as never, true), { elicitation: { url: {} }, roots: {} });
  assert.deepEqual(mirroredCapabilities({ elicitation: { form: { applyDefaults: true } } } as never, true), { elicitation: { form: { applyDefaults: true } } });
  assert.deepEqual(mirroredCapabilities({ sampling: { context: {}, tools: {}, more: {} } } as never, true), { sampling: { context: {}, tools: {} } });
  // Not objects: nothing is declared.
  assert.deepEqual(mirroredCapabilities({ elicitation: true, sampling: "yes", roots: [] } as never, true), {});
});

test("mirrored capabilities: each extension declared is given as a flag, its settings left out; withExtensionsOf keeps those a server declared (issue 52)", () => {
  const extensions = { "io.example/a": { setting: 1 }, "io.example/b": {}, "io.example/not": true, "io.example/list": [] };
  assert.deepEqual(mirroredCapabilities({ extensions } as never, true), { extensions: { "io.example/a": {}, "io.example/b": {} } });
  assert.deepEqual(mirroredCapabilities({ extensions: {} } as never, true), {}, "none declared: no key");
  const given = mirroredCapabilities({ sampling: {}, extensions } as never, true);
  assert.deepEqual(withExtensionsOf(given, ["io.example/b", "io.example/other"]), { sampling: {}, extensions: { "io.example/b": {} } });
  assert.deepEqual(withExtensionsOf(given, []), { sampling: {} }, "the server declared none: none given");
  assert.deepEqual(withExtensionsOf({ sampling: {} }, ["io.example/b"]), { sampling: {} });
});
