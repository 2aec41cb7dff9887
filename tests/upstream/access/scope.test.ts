/** Per-agent scopes: parsed from "dev, docs", narrowing a client's grants and never widening them. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseScope, scoped, unknownInScope } from "../../../src/upstream/access/scope.ts";

test("scope: names split at commas, trimmed, once each; none is no scope", () => {
  assert.deepEqual(parseScope("dev, docs,dev"), ["dev", "docs"]);
  assert.equal(parseScope(" , "), undefined);
  assert.equal(parseScope(""), undefined);
});

test("scope: narrows every grant, never widens one, keeps the client's name (its processes are shared)", () => {
  const all = { name: "ada", toolboxes: "*" as const };
  assert.deepEqual(scoped(all, ["dev"]), { name: "ada", toolboxes: ["dev"] });
  assert.deepEqual(scoped({ name: "bob", toolboxes: ["dev", "ops"] }, ["ops", "secret"]), { name: "bob", toolboxes: ["ops"] });
  assert.equal(scoped(all, undefined), all);
  assert.deepEqual(unknownInScope(["dev", "x"], ["dev", "ops"]), ["x"]);
});
