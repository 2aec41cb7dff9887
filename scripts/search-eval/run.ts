/**
 * Runs the workbench's tool search (src/search) over the public sets: one toolbox per server, every
 * query asked, the rankings scored; and the time per query with 1,000 tools indexed (a seeded sample
 * of MSC-Bench's tools, its level-2 queries one at a time, as eval.mjs --latency does).
 */
import process from "node:process";
import { ToolIndex, type SearchEntry } from "../../src/search/index.ts";
import { type EvalSet, type Scores, score, Sets, type SetTool, toolKey } from "./sets.ts";

export const SET_NAMES = ["mcpproxy", "msc-l1", "msc-l2", "msc-l3", "msc-l4", "livemcp"] as const;

interface Entry extends SearchEntry {
  key: string;
}

function entriesOf(tools: readonly SetTool[]): Entry[] {
  return tools.map((t) => ({ toolbox: t.server, server: t.server, name: t.tool, description: t.description, inputSchema: t.inputSchema, key: toolKey(t.server, t.tool) }));
}

export interface SetResult extends Scores {
  set: string;
}

export function evaluateSets(sets: Sets, names: readonly string[] = SET_NAMES, split?: "dev" | "test"): SetResult[] {
  const indexes = new Map<string, ToolIndex<Entry>>();
  const out: SetResult[] = [];
  for (const name of names) {
    const set: EvalSet = sets.set(name, split);
    let index = indexes.get(set.corpus);
    if (!index) indexes.set(set.corpus, (index = new ToolIndex(entriesOf(sets.corpus(set.corpus)))));
    const ranker = index;
    out.push({ set: name, ...score(set, (q) => ranker.search(q.query, { limit: 10 }).map((hit) => hit.entry.key)) });
  }
  return out;
}

export interface Latency {
  tools: number;
  queries: number;
  buildMs: number;
  p50: number;
  p95: number;
  max: number;
  /** The process's CPU time (user and system) per query: what the query costs, whatever else the machine runs. */
  cpuMs: number;
  /** The 95th percentile of each query's own CPU time: p95 as a quiet machine would time it, on a busy one too. */
  cpuP95: number;
}

/** A seeded sample of `count` MSC-Bench tools, the one eval.mjs --latency takes. */
export function sample(sets: Sets, count: number): SetTool[] {
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  return sets.corpus("msc").map((t) => [random(), t] as const).sort((a, b) => a[0] - b[0]).slice(0, count).map((x) => x[1]);
}

export function measureLatency(sets: Sets, count = 1000): Latency {
  const tools = sample(sets, count);
  const queries = sets.set("msc-l2").queries.map((q) => q.query);
  const started = performance.now();
  const index = new ToolIndex(entriesOf(tools));
  index.search("warm up", { limit: 10 });
  const buildMs = performance.now() - started;
  for (const q of queries.slice(0, 5)) index.search(q, { limit: 10 });
  const times: number[] = [];
  const cpuTimes: number[] = [];
  const cpu = process.cpuUsage();
  for (const q of queries) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    index.search(q, { limit: 10 });
    times.push(performance.now() - t0);
    const spent = process.cpuUsage(c0);
    cpuTimes.push((spent.user + spent.system) / 1000);
  }
  const used = process.cpuUsage(cpu);
  const at = (values: number[], p: number) => values[Math.min(values.length - 1, Math.floor(p * values.length))];
  times.sort((a, b) => a - b);
  cpuTimes.sort((a, b) => a - b);
  return {
    tools: tools.length, queries: queries.length, buildMs, p50: at(times, 0.5), p95: at(times, 0.95), max: times[times.length - 1],
    cpuMs: (used.user + used.system) / 1000 / queries.length, cpuP95: at(cpuTimes, 0.95),
  };
}

export function resultsTable(results: readonly SetResult[]): string {
  const f = (x: number) => x.toFixed(3);
  const lines = ["| set | n | R@1 | R@5 | R@10 | MRR | routing@1 |", "|---|---|---|---|---|---|---|"];
  for (const r of results) lines.push(`| ${r.set} | ${r.n} | ${f(r.r1)} | ${f(r.r5)} | ${f(r.r10)} | ${f(r.mrr)} | ${f(r.routing1)} |`);
  return lines.join("\n");
}
