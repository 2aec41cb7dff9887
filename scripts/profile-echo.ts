/**
 * Issue 42: a CPU profile of the workbench relaying `use_tool` echoes, under Bun's sampling
 * profiler. `bun scripts/profile-echo.ts [--calls N] [--in-flight K] [--out DIR]` runs the source
 * with `--cpu-prof-md`, opens toolbox `one` of the bench configuration, makes N echo calls with K
 * in flight, closes stdin (the profile is written at exit) and prints where the markdown went.
 * With `--http`, the same under `serve --http 127.0.0.1:0`: K SDK clients over Streamable HTTP
 * (2025-11-25 sessions, as the bench's figure 10) with 8 calls in flight each, and SIGTERM at the end.
 * With `--cpuprofile` it writes Bun's JSON profile instead (`--cpu-prof`), which
 * `bun scripts/profile-steps.ts DIR...` sums by step of the call.
 */
import { mkdirSync } from "node:fs";
import process from "node:process";
import { BUN, repoRoot } from "./bench/targets.ts";
import { createSetup, ONE, openToolbox } from "./bench/setup.ts";
import { RpcClient } from "./bench/rpc-client.ts";
import { httpClient, startServe } from "./bench/serve.ts";

const argv = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const index = argv.indexOf(name);
  return index >= 0 && argv[index + 1] ? argv[index + 1] : fallback;
};
const calls = Number(option("--calls", "20000"));
const inFlight = Number(option("--in-flight", "64"));
const out = option("--out", `${repoRoot}/bench-results/profile`);
const format = argv.includes("--cpuprofile") ? "--cpu-prof" : "--cpu-prof-md";
mkdirSync(out, { recursive: true });

const setup = createSetup();
const profiled = { command: BUN, args: [format, `--cpu-prof-dir=${out}`, "--cpu-prof-interval=100", `${repoRoot}/src/main.ts`] };
if (argv.includes("--http")) {
  const served = await startServe(profiled, setup.configPath, setup.workbenchEnv, setup.dir);
  const clients = await Promise.all(Array.from({ length: Math.max(1, Math.round(inFlight / 8)) }, (_, index) => httpClient(served.url, `client-${index}`)));
  try {
    for (const client of clients) await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: ONE } });
    const params = { name: "use_tool", arguments: { tool: { toolbox: ONE, server: "s1", name: "echo" }, arguments: { text: "hello" } } };
    let sent = 0;
    const began = performance.now();
    const worker = async (client: typeof clients[number]) => {
      while (sent < calls) {
        sent++;
        await client.callTool(params);
      }
    };
    await Promise.all(clients.flatMap((client) => Array.from({ length: 8 }, () => worker(client))));
    const seconds = (performance.now() - began) / 1000;
    console.log(`${calls} calls over HTTP, ${clients.length} clients x 8 in flight: ${Math.round(calls / seconds)} calls/s (profiled)`);
  } finally {
    await Promise.allSettled(clients.map((client) => client.end()));
    await served.stop();
    setup.cleanup();
  }
  console.log(`profile in ${out}`);
  process.exit(0);
}
const client = RpcClient.start({
  command: BUN,
  args: [format, `--cpu-prof-dir=${out}`, "--cpu-prof-interval=100", `${repoRoot}/src/main.ts`, "--config", setup.configPath],
  cwd: setup.dir,
  env: setup.workbenchEnv,
});
try {
  await client.initialize();
  await openToolbox(client, ONE);
  const params = { name: "use_tool", arguments: { tool: { toolbox: ONE, server: "s1", name: "echo" }, arguments: { text: "hello" } } };
  let sent = 0;
  const began = performance.now();
  const worker = async () => {
    while (sent < calls) {
      sent++;
      await client.request("tools/call", params, 30_000);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = (performance.now() - began) / 1000;
  console.log(`${calls} calls, ${inFlight} in flight: ${Math.round(calls / seconds)} calls/s (profiled)`);
} finally {
  await client.close();
  setup.cleanup();
}
console.log(`profile in ${out}`);
