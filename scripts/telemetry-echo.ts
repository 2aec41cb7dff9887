/**
 * What telemetry costs a real call (docs/telemetry.md "Costs"): the bench's use_tool echo through
 * executables, one call at a time, p50 over interleaved rounds (the machine's load falls on every
 * side alike), and the time to an initialize answer from a cold start.
 *   bun scripts/telemetry-echo.ts [--before PATH] [--variant PATH] [--variant-env K=V,...] [--calls N] [--rounds N] [--warm N]
 *     [--processes N] [--collector-core N]
 * Sides: `before` (an executable built without the wiring, if given), `off` (dist/mcp-workbench,
 * no endpoint) and `on` (the same, exporting every span and histogram to a collector that
 * answers 200, in a process of its own: in this one it would slow the timing client's reads).
 * Each round takes the sides in another order. Also each workbench's own CPU time per call (its
 * process's user and system time over the measured calls): what the load of the machine moves least;
 * and of it, the main thread's (the JavaScript's; the rest is the JIT's, the allocator's, fetch's).
 */
import { spawn } from "node:child_process";
import process from "node:process";
import { createSetup, ONE, openToolbox } from "./bench/setup.ts";
import { RpcClient } from "./bench/rpc-client.ts";
import { EXECUTABLE } from "./bench/targets.ts";
import { median, percentile } from "./bench/stats.ts";
import { cpuSeconds, mainThreadCpuSeconds } from "./bench/cpu-time.ts";

const argv = process.argv.slice(2);
const option = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const before = option("--before");
const variant = option("--variant");
const variantEnv = option("--variant-env") && Object.fromEntries(option("--variant-env")!.split(",").map((pair) => pair.split("=", 2)));
// Processes a side: one process's luck (where its code and heap landed, what its JIT chose) moves
// its p50 by up to 6% against another process of the same build; a side's round spans them all.
const PROCESSES = Number(option("--processes") ?? "3");
const calls = Number(option("--calls") ?? "6000");
const ROUNDS = Number(option("--rounds") ?? "40");
const STARTS = 15;
// Calls before measuring: Bun's JIT compiles the call's path for about the first 30,000 calls (its
// JITWorker threads' CPU time says so), a long-lived workbench is past that, and the side with more
// code to compile would otherwise be charged for its compiling.
const WARM = Number(option("--warm") ?? "30000");
const ECHO = { name: "use_tool", arguments: { tool: { toolbox: ONE, server: "s1", name: "echo" }, arguments: { text: "hello from the bench" } } };

const COLLECTOR = `
  const server = require("node:http").createServer((request, response) => {
    request.resume();
    request.on("end", () => response.writeHead(200, { "content-type": "application/x-protobuf" }).end());
  });
  server.listen(0, "127.0.0.1", () => console.log(server.address().port));`;
const collector = spawn(process.execPath, ["-e", COLLECTOR], { stdio: ["ignore", "pipe", "inherit"] });
// A collector runs elsewhere in life: on a core of its own here (`--collector-core N`, with the rest pinned to
// another by taskset), its work of receiving is not counted as the workbench's.
const collectorCore = option("--collector-core");
if (collectorCore !== undefined) spawn("taskset", ["-p", "-c", collectorCore, String(collector.pid)], { stdio: "ignore" });
const port = await new Promise<string>((resolve) => collector.stdout!.once("data", (chunk: Uint8Array) => resolve(String(chunk).trim())));
const endpoint = `http://127.0.0.1:${port}`;

const setup = createSetup();
const sides: Record<string, { command: string; env: Record<string, string> }> = {
  ...(before && { before: { command: before, env: {} } }),
  off: { command: EXECUTABLE, env: {} },
  on: { command: EXECUTABLE, env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_METRIC_EXPORT_INTERVAL: "5000" } },
  // Another build with telemetry on, or this one with more variables (`--variant-env OTEL_TRACES_SAMPLER=always_off`):
  // what a change to the traced path or a setting does, beside the rest.
  ...((variant || variantEnv) && {
    variant: {
      command: variant ?? EXECUTABLE,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_METRIC_EXPORT_INTERVAL: "5000", ...variantEnv },
    },
  }),
};
const start = (side: string) =>
  RpcClient.start({ command: sides[side]!.command, args: ["--config", setup.configPath], cwd: setup.dir, env: { ...setup.workbenchEnv, ...sides[side]!.env } });

try {
  const clients: Record<string, RpcClient[]> = {};
  for (const side of Object.keys(sides)) {
    clients[side] = [];
    for (let index = 0; index < PROCESSES; index++) {
      const client = start(side);
      clients[side].push(client);
      await client.initialize();
      await openToolbox(client, ONE);
      for (let call = 0; call < WARM; call++) await client.request("tools/call", ECHO);
    }
  }
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(sides).map((side) => [side, []]));
  // Each round's p50 of each side: the sides' ratio round by round, which the machine's drift moves least.
  const roundP50: Record<string, number[]> = Object.fromEntries(Object.keys(sides).map((side) => [side, []]));
  const cpu: Record<string, number> = Object.fromEntries(Object.keys(sides).map((side) => [side, 0]));
  const mainCpu: Record<string, number> = Object.fromEntries(Object.keys(sides).map((side) => [side, 0]));
  for (let round = 0; round < ROUNDS; round++) {
    const names = Object.keys(sides);
    // Rotated: no side always runs right after another.
    for (const side of [...names.slice(round % names.length), ...names.slice(0, round % names.length)]) {
      const round: number[] = [];
      for (const client of clients[side]!) {
        const cpuBefore = cpuSeconds(client.pid).total;
        const mainBefore = mainThreadCpuSeconds(client.pid);
        for (let call = 0; call < calls / ROUNDS / PROCESSES; call++) {
          const began = performance.now();
          await client.request("tools/call", ECHO);
          round.push(performance.now() - began);
        }
        cpu[side]! += cpuSeconds(client.pid).total - cpuBefore;
        mainCpu[side]! += mainThreadCpuSeconds(client.pid) - mainBefore;
      }
      samples[side]!.push(...round);
      roundP50[side]!.push(percentile(round, 50));
    }
  }
  await Promise.all(Object.values(clients).flat().map((client) => client.close()));
  const starts: Record<string, number[]> = Object.fromEntries(Object.keys(sides).map((side) => [side, []]));
  for (let run = 0; run < STARTS; run++) {
    for (const side of Object.keys(sides)) {
      const began = performance.now();
      const client = start(side);
      await client.initialize();
      starts[side]!.push(performance.now() - began);
      await client.close();
    }
  }
  for (const side of Object.keys(sides)) {
    const p50 = percentile(samples[side]!, 50) * 1000;
    const p99 = percentile(samples[side]!, 99) * 1000;
    const cpuUs = (cpu[side]! / samples[side]!.length) * 1e6;
    const mainUs = (mainCpu[side]! / samples[side]!.length) * 1e6;
    const ratio = median(roundP50[side]!.map((p50, index) => p50 / roundP50.off![index]!));
    const paired = side === "off" ? "" : `, ${((ratio - 1) * 100).toFixed(1)}% from off (median of ${ROUNDS} rounds' p50 ratios)`;
    console.log(`${side}: echo p50 ${p50.toFixed(0)} µs, p99 ${p99.toFixed(0)} µs, CPU ${cpuUs.toFixed(0)} µs a call (main thread ${mainUs.toFixed(0)}; ${samples[side]!.length} calls); start to initialize ${median(starts[side]!).toFixed(1)} ms (median of ${STARTS})${paired}`);
  }
} finally {
  setup.cleanup();
  collector.kill();
}
