/**
 * Client names from tokens' subjects (src/upstream/access/client-names.ts): a safe subject stays
 * as it is; `ALICE`, `alice.`, `x:y`, reserved and path-like ones become slug~hash, each a portable
 * file name, all distinct when case is ignored.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { clientNameOf, isPortableName } from "../../../src/upstream/access/client-names.ts";

test("client names: safe subjects stay; the others become distinct portable names, case aside", async () => {
  for (const safe of ["alice", "bob-2", "svc_ci.prod", "0f3c9a1e-8b7d-4c2e-9f10-3a5b6c7d8e9f", "console"]) assert.equal(await clientNameOf(safe), safe);
  const subjects = ["alice", "ALICE", "Alice", "alice.", "alice..", "x:y", "x?y", "x*y", "CON", "con", "nul.txt", "aux.", "lpt1", "../alice", "a/b", "a\\b", "..", "\u0001", "é", "repo:org/app:ref:refs/heads/main", "x".repeat(300)];
  const names = await Promise.all(subjects.map(clientNameOf));
  for (const [i, name] of names.entries()) {
    assert.ok(isPortableName(name.replace("~", "-")), `${JSON.stringify(subjects[i])} -> ${name}`);
    assert.match(name, /^[a-z0-9][a-z0-9._-]*(~[0-9a-f]{16})?$/);
    assert.ok(name.length <= 64, name);
  }
  assert.equal(new Set(names.map((name) => name.toLowerCase())).size, subjects.length, names.join(" "));
  assert.match(await clientNameOf("ALICE"), /^alice~[0-9a-f]{16}$/);
  assert.match(await clientNameOf("x:y"), /^x-y~[0-9a-f]{16}$/);
  assert.equal(await clientNameOf("x:y"), await clientNameOf("x:y"), "the same subject is the same name every time");
});
