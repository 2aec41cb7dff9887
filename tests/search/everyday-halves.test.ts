/**
 * The everyday set's halves (eval/everyday, issue 53): the fresh set (fresh.json) is held out whole:
 * a figure of "both halves" and the dev half the tuning reads never count it, and each of its labels
 * names a tool of its corpus. The LiveMCPBench corpus needs the public sets (skipped, with the
 * reason shown, where they are not on the machine).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { repoRoot } from "../helpers/runtime.ts";
import { Sets, setsFolder, toolKey } from "../../scripts/search-eval/sets.ts";
import { Everyday, publicHalf } from "../../scripts/search-eval/everyday.ts";

const folder = setsFolder(repoRoot, process.env.TOOLSEARCH_DIR);
const skip = folder === undefined ? "the public tool-search sets are not here (../shared/toolsearch or TOOLSEARCH_DIR)" : false;
if (skip) console.log(`everyday halves: skipped, ${skip}`);

test("everyday halves: the fresh set is scored only when asked for, and never with the dev half or both halves", { skip }, () => {
  const everyday = new Everyday(repoRoot, new Sets(folder!));
  const fresh = new Set(everyday.items.filter((item) => item.split === "fresh").map((item) => item.id));
  assert.equal(fresh.size, 180);
  for (const corpus of ["reference", "livemcp"] as const) {
    for (const split of [undefined, "dev", "test"] as const) {
      const ids = everyday.set(corpus, split).queries.map((query) => query.id);
      assert.ok(ids.length > 0);
      assert.deepEqual(ids.filter((id) => fresh.has(id)), [], `${corpus}, ${split ?? "both halves"}`);
    }
    const asked = everyday.set(corpus, "fresh").queries.map((query) => query.id);
    assert.equal(asked.length, corpus === "reference" ? 60 : 120);
    assert.ok(asked.every((id) => fresh.has(id)));
  }
  assert.equal(publicHalf("fresh"), "test");
  assert.equal(publicHalf("dev"), "dev");
});

test("everyday halves: every label of the fresh set names a tool of its corpus", { skip }, () => {
  const everyday = new Everyday(repoRoot, new Sets(folder!));
  for (const corpus of ["reference", "livemcp"] as const) {
    const known = new Set(everyday.corpus(corpus).map((entry) => entry.key));
    for (const query of everyday.set(corpus, "fresh").queries) {
      for (const alternatives of query.needs) {
        assert.ok(alternatives.length > 0, query.id);
        for (const key of alternatives) assert.ok(known.has(key), `${query.id}: ${key.replace(toolKey("", ""), "/")}`);
      }
    }
  }
});
