/**
 * The everyday set's halves (eval/everyday, issue 53): the fresh set (fresh.json) is held out whole:
 * the dev half the tuning reads and a figure of "both halves" never count it, and each of its labels
 * names a tool of its corpus. Only the LiveMCPBench corpus's labels need the public sets (that part
 * is skipped, with the reason shown, where they are not on the machine).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { repoRoot } from "../helpers/runtime.ts";
import { Sets, setsFolder, toolKey } from "../../scripts/search-eval/sets.ts";
import { Everyday, type EverydaySplit, publicHalf } from "../../scripts/search-eval/everyday.ts";

const folder = setsFolder(repoRoot, process.env.TOOLSEARCH_DIR);
const skip = folder === undefined ? "the public tool-search sets are not here (../shared/toolsearch or TOOLSEARCH_DIR)" : false;
if (skip) console.log(`everyday halves, LiveMCPBench's labels: skipped, ${skip}`);
// The requests and the reference corpus are the repository's own; only LiveMCPBench's tools are read from the sets.
const everyday = () => new Everyday(repoRoot, new Sets(folder ?? `${repoRoot}/no-public-sets`));

test("everyday halves: the fresh set is scored only when asked for; both halves are dev and test exactly", () => {
  const sets = everyday();
  const fresh = new Set(sets.items.filter((item) => item.split === "fresh").map((item) => item.id));
  assert.equal(fresh.size, 180);
  for (const corpus of ["reference", "livemcp"] as const) {
    const ids = (split?: EverydaySplit) => sets.set(corpus, split).queries.map((query) => query.id);
    const [dev, test, both] = [ids("dev"), ids("test"), ids()];
    assert.ok(dev.length > 0 && test.length > 0);
    assert.deepEqual([...dev, ...test].filter((id) => fresh.has(id)), [], corpus);
    assert.deepEqual(both.sort(), [...dev, ...test].sort(), `${corpus}: both halves`);
    const asked = ids("fresh");
    assert.equal(asked.length, corpus === "reference" ? 60 : 120);
    assert.ok(asked.every((id) => fresh.has(id)));
  }
  assert.equal(publicHalf("fresh"), "test");
  assert.equal(publicHalf("dev"), "dev");
});

function labelsKnown(sets: Everyday, corpus: "reference" | "livemcp"): void {
  const known = new Set(sets.corpus(corpus).map((entry) => entry.key));
  assert.ok(known.size > 0);
  for (const query of sets.set(corpus, "fresh").queries) {
    for (const alternatives of query.needs) {
      assert.ok(alternatives.length > 0, query.id);
      for (const key of alternatives) assert.ok(known.has(key), `${query.id}: ${key.replace(toolKey("", ""), "/")}`);
    }
  }
}

test("everyday halves: every label of the fresh set over the reference servers names one of their tools", () => {
  labelsKnown(everyday(), "reference");
});

test("everyday halves: every label of the fresh set over LiveMCPBench names one of its tools", { skip }, () => {
  labelsKnown(everyday(), "livemcp");
});
