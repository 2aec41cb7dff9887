/**
 * The tool search's figures on the public sets (issue #39): `bun scripts/search-eval.ts [--split dev|test|fresh]
 * [--set mcpproxy,msc-l2] [--no-latency]
 * [--everyday [--styles]] [--everyday-only] [--replay] [--ablate]`, or `deno run -A scripts/search-eval.ts`. Reads the sets from
 * TOOLSEARCH_DIR or ../shared/toolsearch; prints R@1, R@5, R@10, MRR and routing@1 per set and the time
 * per query with 1,000 tools indexed. See docs/tool-search.md.
 */
import process from "node:process";
import { fileURLToPath } from "node:url";
import { dirname } from "node:path";
import { Sets, setsFolder } from "./search-eval/sets.ts";
import { evaluateSets, measureLatency, resultsTable, SET_NAMES } from "./search-eval/run.ts";
import { measureCatalog } from "./search-eval/catalog-latency.ts";
import { Everyday, evaluateEveryday, everydaySplit, publicHalf } from "./search-eval/everyday.ts";
import { replay, replayLog, replayTable } from "./search-eval/learning.ts";
import { ablate } from "./search-eval/ablate.ts";

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const at = args.indexOf(`--${name}`);
  return at < 0 ? undefined : args[at + 1];
};
const repoRoot = dirname(dirname(fileURLToPath(import.meta.url)));
const folder = setsFolder(repoRoot, process.env.TOOLSEARCH_DIR);
if (folder === undefined) {
  console.error("No tool-search sets found: set TOOLSEARCH_DIR or place them in ../shared/toolsearch");
  process.exit(2);
}
const split = everydaySplit(option("split"));
const names = option("set")?.split(",") ?? [...SET_NAMES];
const sets = new Sets(folder);
console.log(`sets: ${folder}${split ? ` (${publicHalf(split)} half)` : ""}\n`);
if (!args.includes("--everyday-only")) console.log(resultsTable(evaluateSets(sets, names, publicHalf(split))));
if (args.includes("--everyday") || args.includes("--everyday-only")) {
  const which = split === "fresh" ? ", the fresh set" : split ? `, ${split} half` : ", both halves";
  console.log(`\neveryday set (eval/everyday${which}):\n`);
  console.log(resultsTable(evaluateEveryday(new Everyday(repoRoot, sets), split, args.includes("--styles"))));
}
if (args.includes("--ablate")) {
  const publicSets = `public sets: ${publicHalf(split) ?? "both"} halves`;
  console.log(`\neach technique turned off (everyday: ${split ?? "both halves"}; ${publicSets}):\n`);
  console.log(ablate(new Everyday(repoRoot, sets), sets, split));
}
if (args.includes("--replay")) {
  // What learning from use adds, on a log of the everyday set's requests (scripts/search-eval/learning.ts).
  // The fresh set has no paraphrases of one intent to learn from: its replay is the test half's.
  const half = split === "dev" ? "dev" : "test";
  if (split === "fresh") console.log("\nthe fresh set has no intents asked twice: the replay below is the test half's");
  console.log(`\nlearning replay (eval/everyday, ${half} half: each intent's first request learned, the others asked):\n`);
  for (const judge of ["labelled", "first-result"] as const) console.log(`${replayTable(replay(new Everyday(repoRoot, sets), half, judge), judge)}\n`);
  console.log("learning replay (eval/everyday/log.json: 30 requests, each learned once, then asked with other values):\n");
  for (const judge of ["labelled", "first-result"] as const) console.log(`${replayTable(replayLog(repoRoot, new Everyday(repoRoot, sets), judge), judge)}\n`);
}
if (!args.includes("--no-latency")) {
  const l = measureLatency(sets);
  console.log(`\nlatency: ${l.tools} tools, ${l.queries} queries one at a time: build ${l.buildMs.toFixed(0)} ms, ` +
    `p50 ${l.p50.toFixed(2)} ms, p95 ${l.p95.toFixed(2)} ms, max ${l.max.toFixed(1)} ms; CPU ${l.cpuMs.toFixed(2)} ms a query on average`);
  const c = await measureCatalog(sets);
  console.log(`search_tools' path (session registry, listing cache, ${c.servers} toolboxes): first search ${c.firstMs.toFixed(0)} ms, ` +
    `then p50 ${c.p50.toFixed(2)} ms, p95 ${c.p95.toFixed(2)} ms`);
}
