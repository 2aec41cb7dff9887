/**
 * The ranker holds its figures on the three public sets of ../shared/toolsearch (issue #39): mcpproxy
 * R@1, R@5, routing@1; MSC-Bench level 2 R@1; LiveMCPBench R@10; p95 per query over 1,000 tools.
 * Skipped, with the reason shown, where the sets are not on the machine (TOOLSEARCH_DIR names them).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { repoRoot } from "../helpers/runtime.ts";
import { Sets, setsFolder } from "../../scripts/search-eval/sets.ts";
import { evaluateSets, measureLatency } from "../../scripts/search-eval/run.ts";

const folder = setsFolder(repoRoot, process.env.TOOLSEARCH_DIR);
const skip = folder === undefined ? "the public tool-search sets are not here (../shared/toolsearch or TOOLSEARCH_DIR)" : false;
if (skip) console.log(`search on the public sets: skipped, ${skip}`);

// Issue 53: each within 0.02 of the figures before it (mcpproxy 0.507, 0.883, 0.936; msc-l2 0.808; livemcp 0.505).
test("search on the public sets: mcpproxy R@1 ≥ 0.487, R@5 ≥ 0.863, routing@1 ≥ 0.916; MSC level 2 R@1 ≥ 0.788; LiveMCPBench R@10 ≥ 0.485", { skip }, () => {
  const results = new Map(evaluateSets(new Sets(folder!), ["mcpproxy", "msc-l2", "livemcp"]).map((r) => [r.set, r]));
  const mcpproxy = results.get("mcpproxy")!;
  assert.ok(mcpproxy.r1 >= 0.487, `mcpproxy R@1 ${mcpproxy.r1.toFixed(3)}`);
  assert.ok(mcpproxy.r5 >= 0.863, `mcpproxy R@5 ${mcpproxy.r5.toFixed(3)}`);
  assert.ok(mcpproxy.routing1 >= 0.916, `mcpproxy routing@1 ${mcpproxy.routing1.toFixed(3)}`);
  const l2 = results.get("msc-l2")!;
  assert.ok(l2.r1 >= 0.788, `msc-l2 R@1 ${l2.r1.toFixed(3)}`);
  const live = results.get("livemcp")!;
  assert.ok(live.r10 >= 0.485, `livemcp R@10 ${live.r10.toFixed(3)}`);
});

// Judged by each query's own CPU time, not the clock: on a machine running other work, a query the
// scheduler sets aside for a time slice takes longer by the clock without costing more (issue 55).
// On a quiet machine the two agree; `bun scripts/search-eval.ts` gives the clock's.
test("search on the public sets: p95 per query ≤ 5 ms with 1,000 tools indexed", { skip }, () => {
  const latency = measureLatency(new Sets(folder!));
  assert.equal(latency.tools, 1000);
  assert.ok(latency.cpuP95 <= 5, `p95 ${latency.cpuP95.toFixed(2)} ms of CPU (${latency.p95.toFixed(2)} ms by the clock)`);
  // By the clock, only far past anything a busy machine adds (8.9 ms seen): a query that waits on something.
  assert.ok(latency.p95 <= 50, `p95 ${latency.p95.toFixed(2)} ms by the clock`);
});
