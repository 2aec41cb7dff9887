/** Figures 3 and 4: echo calls one at a time (latency) and many in flight (throughput). */
import { performance } from "node:perf_hooks";
import type { Endpoint } from "./setup.ts";
import { BUDGET_MS, type Plan } from "./plan.ts";
import { median, percentile } from "./stats.ts";

const ECHO_ARGS = { text: "hello from the bench" };

/** What the call figures need of an endpoint: stdio ones, or the HTTP figure's. */
export type Caller = Pick<Endpoint, "callTool">;

export interface Pair {
  workbench: Caller;
  direct: Caller;
}

export interface LatencyFigures {
  calls: { workbench: number; direct: number };
  p50Us: { workbench: number; direct: number };
  p99Us: { workbench: number; direct: number };
  /** p50 of the workbench minus p50 of direct: what the proxy adds to one call. */
  overheadP50Us: number;
}

export async function measureLatency(pair: Pair, plan: Plan): Promise<LatencyFigures> {
  await warmUp(pair, plan.warmupCalls);
  const samples = { workbench: [] as number[], direct: [] as number[] };
  const perRound = Math.ceil(plan.sequentialCalls / plan.rounds);
  const deadline = performance.now() + BUDGET_MS.sequential;
  for (let round = 0; round < plan.rounds; round++) {
    for (const side of ["direct", "workbench"] as const) {
      samples[side].push(...await sequentialCalls(pair[side], perRound, deadline));
    }
  }
  const p50 = (side: keyof typeof samples) => percentile(samples[side], 50) * 1000;
  const p99 = (side: keyof typeof samples) => percentile(samples[side], 99) * 1000;
  return {
    calls: { workbench: samples.workbench.length, direct: samples.direct.length },
    p50Us: { workbench: p50("workbench"), direct: p50("direct") },
    p99Us: { workbench: p99("workbench"), direct: p99("direct") },
    overheadP50Us: p50("workbench") - p50("direct"),
  };
}

async function warmUp(pair: Pair, calls: number): Promise<void> {
  for (let call = 0; call < calls; call++) {
    await pair.direct.callTool("echo", ECHO_ARGS);
    await pair.workbench.callTool("echo", ECHO_ARGS);
  }
}

/** Milliseconds of each call, one after the other; stops early at the deadline. */
async function sequentialCalls(endpoint: Caller, count: number, deadline: number): Promise<number[]> {
  const times: number[] = [];
  for (let call = 0; call < count && performance.now() < deadline; call++) {
    const began = performance.now();
    await endpoint.callTool("echo", ECHO_ARGS);
    times.push(performance.now() - began);
  }
  return times;
}

export interface ThroughputFigures {
  calls: { workbench: number; direct: number };
  /** Medians over the rounds. */
  callsPerSecond: { workbench: number; direct: number };
  /** Workbench throughput as a share of direct: the median of each round's ratio. */
  ratio: number;
}

export async function measureThroughput(pair: Pair, plan: Plan): Promise<ThroughputFigures> {
  const rates = { workbench: [] as number[], direct: [] as number[] };
  const calls = { workbench: 0, direct: 0 };
  const perRound = Math.ceil(plan.concurrentCalls / plan.rounds);
  const deadline = performance.now() + BUDGET_MS.concurrent;
  for (let round = 0; round < plan.rounds; round++) {
    for (const side of ["direct", "workbench"] as const) {
      const began = performance.now();
      const done = await concurrentCalls(pair[side], perRound, plan.inFlight, deadline);
      rates[side].push(done / ((performance.now() - began) / 1000));
      calls[side] += done;
    }
  }
  const ratios = rates.workbench.map((rate, round) => rate / rates.direct[round]);
  return {
    calls,
    callsPerSecond: { workbench: median(rates.workbench), direct: median(rates.direct) },
    ratio: median(ratios),
  };
}

/** Keeps `inFlight` calls outstanding until `count` have been sent; returns how many completed. */
async function concurrentCalls(endpoint: Caller, count: number, inFlight: number, deadline: number): Promise<number> {
  let sent = 0;
  const worker = async () => {
    let done = 0;
    while (sent < count && performance.now() < deadline) {
      sent++;
      await endpoint.callTool("echo", ECHO_ARGS);
      done++;
    }
    return done;
  };
  const done = await Promise.all(Array.from({ length: inFlight }, worker));
  return done.reduce((sum, n) => sum + n, 0);
}
