/**
 * Issue 42: two or more builds of the executable measured alternately in one session, for the
 * figures a shared 2-core machine moves the most. `bun scripts/compare-builds.ts FIGURE EXE...
 * [--rounds N]`, where FIGURE is
 *
 * - `start`: spawn to the `initialize` answer, and VmRSS 150 ms later (10 fresh processes per
 *   executable per round, taking turns start by start; the bench's configuration with an empty
 *   listing cache, or with `--cached` the cache the first executable fills by opening the bench's
 *   three toolboxes once: the instructions' tool counts are then made at initialize);
 * - `cpu`: the workbench's own CPU time (utime + stime from /proc, and stime alone) per `use_tool`
 *   echo, 20,000 calls with 64 in flight after 2,000 to warm up, and the calls per second of the
 *   same run;
 * - `blob`: VmHWM after relaying 1, 8 and 32 MiB through one fresh workbench, then 5 pairs of a
 *   32 MiB result read directly and through it (the ratio of each pair);
 * - `http`: `serve --http` against the same executable over stdio, see bench/serve-compare.ts (an
 *   EXE ending in `.ts` runs under bun: `scripts/http-floor.ts` is the floor).
 *
 * Each round runs every executable once, in the order given, so a noisy moment falls on all of
 * them; the table gives each figure's median and range over the rounds. Copy each build to a file
 * of its own first (`cp dist/mcp-workbench /tmp/before`). Linux only (/proc).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import process from "node:process";
import { createSetup, direct, EIGHT, type Endpoint, MIXED, ONE, openToolbox, textOf, type ToolResult } from "./bench/setup.ts";
import { RpcClient } from "./bench/rpc-client.ts";
import { residentBytes } from "./bench/memory.ts";
import { cpuSeconds } from "./bench/cpu-time.ts";
import { median, MiB } from "./bench/stats.ts";
import { measureServeRound } from "./bench/serve-compare.ts";

const FIGURES = ["start", "cpu", "blob", "http"] as const;
type Figure = typeof FIGURES[number];
type Samples = Record<string, number[]>;

const argv = process.argv.slice(2);
const figure = argv[0] as Figure;
const roundsAt = argv.indexOf("--rounds");
const rounds = roundsAt >= 0 ? Number(argv[roundsAt + 1]) : 3;
// Absolute: the processes start in the bench's own folder.
const cached = argv.includes("--cached");
const executables = argv.slice(1)
  .filter((arg, index, all) => arg !== "--rounds" && arg !== "--cached" && all[index - 1] !== "--rounds")
  .map((exe) => resolve(exe));
if (!FIGURES.includes(figure) || executables.length === 0 || !(rounds > 0)) {
  console.error(`usage: compare-builds.ts ${FIGURES.join("|")} EXE... [--rounds N] [--cached]`);
  process.exit(2);
}

const STARTS_PER_ROUND = 10;
const CALLS = 20_000;
const WARM_UP_CALLS = 2_000;
const IN_FLIGHT = 64;
const BLOB_PAIRS = 5;
const CALL_TIMEOUT_MS = 120_000;

const setup = createSetup();
const results = new Map<string, Samples>(executables.map((exe) => [exe, {}]));

function start(exe: string): RpcClient {
  return RpcClient.start({ command: exe, args: ["--config", setup.configPath], cwd: setup.dir, env: setup.workbenchEnv });
}

function add(exe: string, name: string, value: number): void {
  const samples = results.get(exe)!;
  (samples[name] ??= []).push(value);
}

async function echoes(client: RpcClient, calls: number): Promise<void> {
  const params = { name: "use_tool", arguments: { tool: { toolbox: ONE, server: "s1", name: "echo" }, arguments: { text: "hello" } } };
  let sent = 0;
  const worker = async () => {
    while (sent < calls) {
      sent++;
      await client.request("tools/call", params, CALL_TIMEOUT_MS);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

async function blob(call: (params: Record<string, unknown>) => Promise<unknown>, bytes: number, viaWorkbench: boolean): Promise<number> {
  const params = viaWorkbench
    ? { name: "use_tool", arguments: { tool: { toolbox: ONE, server: "s1", name: "blob" }, arguments: { bytes } } }
    : { name: "blob", arguments: { bytes } };
  const began = performance.now();
  const result = await call(params) as ToolResult;
  const elapsed = performance.now() - began;
  if (textOf(result).length !== bytes) throw new Error(`A blob of ${bytes} bytes came back with ${textOf(result).length}`);
  return elapsed;
}

/** Ten starts of each executable, taking turns start by start. */
async function measureStarts(): Promise<void> {
  for (let run = 0; run < STARTS_PER_ROUND; run++) {
    for (const exe of executables) {
      const began = performance.now();
      const client = start(exe);
      try {
        await client.initialize();
        add(exe, "spawn to initialize, ms", performance.now() - began);
        await new Promise((resolve) => setTimeout(resolve, 150));
        add(exe, "RSS after initialize, MiB", residentBytes(client.pid) / MiB);
        add(exe, "of which anonymous, MiB", residentBytes(client.pid, "RssAnon") / MiB);
        add(exe, "of which mapped files, MiB", residentBytes(client.pid, "RssFile") / MiB);
      } finally {
        await client.close();
      }
    }
  }
}

async function measureCpu(exe: string): Promise<void> {
  const client = start(exe);
  try {
    await client.initialize();
    await openToolbox(client, ONE);
    await echoes(client, WARM_UP_CALLS);
    const cpu = cpuSeconds(client.pid);
    const began = performance.now();
    await echoes(client, CALLS);
    const seconds = (performance.now() - began) / 1000;
    const after = cpuSeconds(client.pid);
    add(exe, "workbench CPU per call, µs", (after.total - cpu.total) / CALLS * 1e6);
    add(exe, "of which in the kernel, µs", (after.system - cpu.system) / CALLS * 1e6);
    add(exe, "calls/s, 64 in flight", CALLS / seconds);
  } finally {
    await client.close();
  }
}

async function measureBlob(exe: string, baseline: Endpoint): Promise<void> {
  const client = start(exe);
  const call = (params: Record<string, unknown>) => client.request("tools/call", params, CALL_TIMEOUT_MS);
  try {
    await client.initialize();
    await openToolbox(client, ONE);
    add(exe, "RSS with the toolbox open, MiB", residentBytes(client.pid) / MiB);
    for (const mib of [1, 8, 32]) await blob(call, mib * MiB, true);
    add(exe, "peak RSS after 1, 8 and 32 MiB, MiB", residentBytes(client.pid, "VmHWM") / MiB);
    const direct = (params: Record<string, unknown>) => baseline.client.request("tools/call", params, CALL_TIMEOUT_MS);
    for (let pair = 0; pair < BLOB_PAIRS; pair++) {
      const directMs = await blob(direct, 32 * MiB, false);
      add(exe, "32 MiB through it / direct", await blob(call, 32 * MiB, true) / directMs);
    }
  } finally {
    await client.close();
  }
}

const loadAverage = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const fmt = (value: number) => value >= 100 ? value.toFixed(0) : value.toFixed(value >= 10 ? 1 : 2);

/** The listing cache filled: the bench's three toolboxes opened once. */
async function fillCache(exe: string): Promise<void> {
  const client = start(exe);
  try {
    await client.initialize();
    for (const toolbox of [ONE, EIGHT, MIXED]) await openToolbox(client, toolbox, CALL_TIMEOUT_MS);
  } finally {
    await client.close();
  }
}

try {
  console.error(`load average at the start ${loadAverage()}`);
  if (cached) await fillCache(executables[0]);
  const baseline = figure === "blob" ? await direct() : undefined;
  for (let round = 0; round < rounds; round++) {
    if (figure === "start") await measureStarts();
    for (const exe of figure === "start" ? [] : executables) {
      if (figure === "cpu") await measureCpu(exe);
      else if (figure === "http") await measureServeRound(exe, setup, (name, value) => add(exe, name, value));
      else await measureBlob(exe, baseline!);
    }
    console.error(`round ${round + 1} of ${rounds} done (load average ${loadAverage()})`);
  }
  await baseline?.close();
  const names = Object.keys(results.get(executables[0])!);
  console.log(`| figure (median, range) | ${executables.join(" | ")} |`);
  console.log(`| --- |${executables.map(() => " --- |").join("")}`);
  for (const name of names) {
    const cells = executables.map((exe) => {
      const samples = results.get(exe)![name] ?? [];
      return `${fmt(median(samples))} (${fmt(Math.min(...samples))}–${fmt(Math.max(...samples))})`;
    });
    console.log(`| ${name} | ${cells.join(" | ")} |`);
  }
} finally {
  setup.cleanup();
}
