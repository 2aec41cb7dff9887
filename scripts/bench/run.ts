/** One bench run: every figure for one target, in an order that keeps heavy work from skewing light figures. */
import { performance } from "node:perf_hooks";
import type { BenchArgs } from "./args.ts";
import { FULL, QUICK } from "./plan.ts";
import { type BenchSetup, createSetup, direct, viaWorkbench } from "./setup.ts";
import { ensureExecutable, executableBytes, runtimeVersions, type Target } from "./targets.ts";
import { measureOpenToolbox, measureStartup } from "./startup.ts";
import { measureLatency, measureThroughput, type Pair } from "./calls.ts";
import { measureBlobs } from "./blobs.ts";
import { measureBlobPeak } from "./peak.ts";
import { measureContext } from "./context.ts";
import { describeMachine, loadAverage } from "./machine.ts";
import { checkTargets, type Results } from "./report.ts";
import { measureHttp } from "./http.ts";
import { measureServe } from "./serve.ts";

export async function runBench(args: BenchArgs, log: (text: string) => void = console.log): Promise<Results> {
  const began = performance.now();
  const startedAt = new Date().toISOString();
  const loadAtStart = loadAverage();
  if (args.target === "bin") ensureExecutable();
  const plan = args.quick ? QUICK : FULL;
  const setup = createSetup();
  try {
    log("1 start-up");
    const startup = await measureStartup(args.target, setup, plan);
    log("2 open_toolbox, 6 memory");
    const openToolbox = await measureOpenToolbox(args.target, setup, plan);
    const { latency, throughput, blobs } = await withPair(args.target, setup, async (pair) => {
      log("3 sequential calls");
      const latency = await measureLatency(pair, plan);
      log("4 concurrent calls");
      const throughput = await measureThroughput(pair, plan);
      // Last on this pair: big strings leave the heaps larger than the call figures should see.
      log("5 blobs");
      const blobs = await measureBlobs(pair, plan);
      return { latency, throughput, blobs };
    });
    log("5 peak memory of a 32 MiB result");
    const blobPeak = await measureBlobPeak(args.target, setup, plan);
    log("7 context cost");
    const context = await measureContext(args.target, setup);
    log("9 echo over Streamable HTTP");
    const http = await measureHttp(args.target, setup, plan);
    log("10 served over HTTP");
    const serve = await measureServe(args.target, setup, plan);
    const results: Results = {
      target: args.target,
      quick: args.quick,
      startedAt,
      durationS: 0,
      machine: { ...describeMachine(), loadAverage1mAtStart: loadAtStart, loadAverage1mAtEnd: loadAverage() },
      versions: runtimeVersions(),
      plan,
      startup,
      openToolbox,
      latency,
      throughput,
      blobs,
      blobPeak,
      context,
      http,
      serve,
      executableBytes: executableBytes(),
    };
    results.checks = checkTargets(results);
    results.durationS = Math.round((performance.now() - began) / 100) / 10;
    return results;
  } finally {
    setup.cleanup();
  }
}

/** A workbench with toolbox `one` open and the same fixture started directly, closed whatever happens. */
async function withPair<T>(target: Target, setup: BenchSetup, fn: (pair: Pair) => Promise<T>): Promise<T> {
  const workbench = await viaWorkbench(target, setup);
  try {
    const baseline = await direct();
    try {
      return await fn({ workbench, direct: baseline });
    } finally {
      await baseline.close();
    }
  } finally {
    await workbench.close();
  }
}
