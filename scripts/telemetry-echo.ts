/**
 * What telemetry costs a real call (docs/telemetry.md "Costs"): the bench's use_tool echo through
 * executables, one call at a time, p50 over interleaved rounds (the machine's load falls on every
 * side alike), and the time to an initialize answer from a cold start.
 *   bun scripts/telemetry-echo.ts [--before PATH] [--calls N]
 * Sides: `before` (an executable built without the wiring, if given), `off` (dist/mcp-workbench,
 * no endpoint) and `on` (the same, exporting every span and histogram to a collector that
 * answers 200, in a process of its own: in this one it would slow the timing client's reads).
 * Each round takes the sides in another order. Also each workbench's own CPU time per call (its
 * process's user and system time over the measured calls): what the load of the machine moves least.
 */
import { spawn } from "node:child_process";
import process from "node:process";
import { createSetup, ONE, openToolbox } from "./bench/setup.ts";
import { RpcClient } from "./bench/rpc-client.ts";
import { EXECUTABLE } from "./bench/targets.ts";
import { median, percentile } from "./bench/stats.ts";
import { cpuSeconds } from "./bench/cpu-time.ts";

const argv = process.argv.slice(2);
const option = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const before = option("--before");
const calls = Number(option("--calls") ?? "6000");
const ROUNDS = Number(option("--rounds") ?? "40");
const STARTS = 15;
const ECHO = { name: "use_tool", arguments: { tool: { toolbox: ONE, server: "s1", name: "echo" }, arguments: { text: "hello from the bench" } } };

const COLLECTOR = `
  const server = require("node:http").createServer((request, response) => {
    request.resume();
    request.on("end", () => response.writeHead(200, { "content-type": "application/x-protobuf" }).end());
  });
  server.listen(0, "127.0.0.1", () => console.log(server.address().port));`;
const collector = spawn(process.execPath, ["-e", COLLECTOR], { stdio: ["ignore", "pipe", "inherit"] });
const port = await new Promise<string>((resolve) => collector.stdout!.once("data", (chunk: Uint8Array) => resolve(String(chunk).trim())));
const endpoint = `http://127.0.0.1:${port}`;

const setup = createSetup();
const sides: Record<string, { command: string; env: Record<string, string> }> = {
  ...(before && { before: { command: before, env: {} } }),
  off: { command: EXECUTABLE, env: {} },
  on: { command: EXECUTABLE, env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_METRIC_EXPORT_INTERVAL: "5000" } },
};
const start = (side: string) =>
  RpcClient.start({ command: sides[side]!.command, args: ["--config", setup.configPath], cwd: setup.dir, env: { ...setup.workbenchEnv, ...sides[side]!.env } });

try {
  const clients: Record<string, RpcClient> = {};
  for (const side of Object.keys(sides)) {
    clients[side] = start(side);
    await clients[side].initialize();
    await openToolbox(clients[side], ONE);
    for (let call = 0; call < 300; call++) await clients[side].request("tools/call", ECHO);
  }
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(sides).map((side) => [side, []]));
  // Each round's p50 of each side: the sides' ratio round by round, which the machine's drift moves least.
  const roundP50: Record<string, number[]> = Object.fromEntries(Object.keys(sides).map((side) => [side, []]));
  const cpu: Record<string, number> = Object.fromEntries(Object.keys(sides).map((side) => [side, 0]));
  for (let round = 0; round < ROUNDS; round++) {
    const names = Object.keys(sides);
    // Rotated: no side always runs right after another.
    for (const side of [...names.slice(round % names.length), ...names.slice(0, round % names.length)]) {
      const cpuBefore = cpuSeconds(clients[side]!.pid).total;
      const round: number[] = [];
      for (let call = 0; call < calls / ROUNDS; call++) {
        const began = performance.now();
        await clients[side]!.request("tools/call", ECHO);
        round.push(performance.now() - began);
      }
      samples[side]!.push(...round);
      roundP50[side]!.push(percentile(round, 50));
      cpu[side]! += cpuSeconds(clients[side]!.pid).total - cpuBefore;
    }
  }
  await Promise.all(Object.values(clients).map((client) => client.close()));
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
    const ratio = median(roundP50[side]!.map((p50, index) => p50 / roundP50.off![index]!));
    const paired = side === "off" ? "" : `, ${((ratio - 1) * 100).toFixed(1)}% from off (median of ${ROUNDS} rounds' p50 ratios)`;
    console.log(`${side}: echo p50 ${p50.toFixed(0)} µs, p99 ${p99.toFixed(0)} µs, CPU ${cpuUs.toFixed(0)} µs a call (${samples[side]!.length} calls); start to initialize ${median(starts[side]!).toFixed(1)} ms (median of ${STARTS})${paired}`);
  }
} finally {
  setup.cleanup();
  collector.kill();
}
