/**
 * The benchmark (issue #6): what the workbench costs over talking to a server directly.
 * `bun scripts/bench.ts [--target bun|deno|bin] [--quick] [--context] [--chain] [--search] [--out PATH]`, or under Deno
 * with `deno run -A scripts/bench.ts ...`. Prints the figures and the targets; saves JSON to
 * bench-results/<target>-<timestamp>.json unless --out names a path. `--context` measures only
 * figure 7 (context cost) and prints it; `--chain` only figure 8 (the chain task, use_tool against
 * run_code); `--search` only the tool search's figures on the public sets (scripts/search-eval.ts).
 * See docs/benchmarks.md.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import process from "node:process";
import { parseBenchArgs, USAGE } from "./bench/args.ts";
import { runBench } from "./bench/run.ts";
import { checksTable, contextTable, figuresTable, referenceChecks } from "./bench/report.ts";
import { measureContext } from "./bench/context.ts";
import { createSetup } from "./bench/setup.ts";
import { ensureExecutable } from "./bench/targets.ts";
import { repoRoot } from "./bench/targets.ts";
import { RpcClient } from "./bench/rpc-client.ts";
import { chainTable, measureChain } from "./bench/chain.ts";

/** A run that hangs despite every per-loop bound still ends. */
const HARD_LIMIT_MS = { quick: 3 * 60_000, full: 15 * 60_000 };

async function main(): Promise<number> {
  if (process.argv.includes("--help") || process.argv.includes("-h")) {
    console.log(USAGE);
    return 0;
  }
  let args;
  try {
    args = parseBenchArgs(process.argv.slice(2));
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  const limit = args.quick ? HARD_LIMIT_MS.quick : HARD_LIMIT_MS.full;
  const watchdog = setTimeout(() => {
    console.error(`bench: stopped after ${limit / 1000} s`);
    RpcClient.terminateAll();
    process.exit(1);
  }, limit);
  console.log(`bench: target ${args.target}${args.quick ? " (quick)" : ""}`);
  if (args.search) {
    clearTimeout(watchdog);
    // The public sets' figures and the time per query: scripts/search-eval.ts prints them.
    await import("./search-eval.ts");
    return 0;
  }
  if (args.chain) {
    if (args.target === "bin") ensureExecutable();
    console.log(`\n${chainTable(await measureChain(args.target))}`);
    clearTimeout(watchdog);
    return 0;
  }
  if (args.context) {
    await contextOnly(args.target);
    clearTimeout(watchdog);
    return 0;
  }
  const results = await runBench(args, (text) => console.log(`  measuring ${text}`));
  clearTimeout(watchdog);
  const { loadAverage1mAtStart: before, loadAverage1mAtEnd: after, cpus } = results.machine;
  console.log(`\n${cpus} CPUs, load average ${before} at the start, ${after} at the end`);
  console.log(`\n${figuresTable(results)}\n\n${checksTable(results.checks ?? [])}`);
  const out = args.out ?? `${repoRoot}/bench-results/${args.target}-${results.startedAt.replace(/[:.]/g, "-")}.json`;
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(results, null, 2) + "\n");
  console.log(`\n${results.durationS} s; saved ${out}`);
  return 0;
}

/** `--context`: figure 7 and its targets, nothing saved. */
async function contextOnly(target: Parameters<typeof measureContext>[0]): Promise<void> {
  if (target === "bin") ensureExecutable();
  const setup = createSetup();
  try {
    const context = await measureContext(target, setup);
    console.log(`\n${contextTable(context)}\n\n${checksTable(referenceChecks(context))}`);
  } finally {
    setup.cleanup();
  }
}

process.exit(await main());
