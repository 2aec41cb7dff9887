/**
 * `compare-builds.ts http` (issue 42): one round of serving over HTTP for one executable (or the
 * floor, scripts/http-floor.ts): echo p50 and p99 one call at a time over HTTP, from the SDK's
 * client and from a bare fetch client, against the same executable over stdio; 8 SDK clients × 8
 * in flight, calls/s and the serving process's CPU per call; and the process's RSS with 1,000 idle
 * sessions (idle-sessions.ts).
 */
import { performance } from "node:perf_hooks";
import process from "node:process";
import { type BenchSetup, ONE, openToolbox } from "./setup.ts";
import { type Command, RpcClient } from "./rpc-client.ts";
import { httpClient, startServe } from "./serve.ts";
import { MiB, percentile } from "./stats.ts";
import { IDLE_SESSIONS, idleConfig, idleResident, rawSession } from "./idle-sessions.ts";
import { BUN } from "./targets.ts";
import { cpuSeconds } from "./cpu-time.ts";

const WARM_UP = 300;
const SEQUENTIAL_BLOCKS = 3;
const PER_BLOCK = 500;
const THROUGHPUT_CALLS = 16_000;
const THROUGHPUT_WARM_UP = 2_000;
const ECHO = { tool: { toolbox: ONE, server: "s1", name: "echo" }, arguments: { text: "hello from the bench" } };

type Add = (name: string, value: number) => void;

/** How an EXE argument runs: a `.ts` file (the floor) under bun, else the executable itself. */
export function commandOf(exe: string): Command {
  return exe.endsWith(".ts") ? { command: BUN, args: [exe] } : { command: exe, args: [] };
}

async function timed(count: number, call: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < count; index++) {
    const began = performance.now();
    await call();
    times.push((performance.now() - began) * 1000);
  }
  return times;
}

export async function measureServeRound(exe: string, setup: BenchSetup, add: Add): Promise<void> {
  const command = commandOf(exe);
  const served = await startServe(command, setup.configPath, setup.workbenchEnv, setup.dir);
  const stdio = RpcClient.start({ ...command, args: [...command.args, "--config", setup.configPath], cwd: setup.dir, env: setup.workbenchEnv });
  const clients: Awaited<ReturnType<typeof httpClient>>[] = [];
  try {
    await stdio.initialize();
    await openToolbox(stdio, ONE);
    for (let index = 0; index < 8; index++) clients.push(await httpClient(served.url, `client-${index}`));
    for (const client of clients) await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: ONE } });
    const raw = await rawSession(served.url);
    await raw.call({ name: "open_toolbox", arguments: { toolbox_name: ONE } });
    const sides = {
      stdio: () => stdio.request("tools/call", { name: "use_tool", arguments: ECHO }),
      sdk: () => clients[0].callTool({ name: "use_tool", arguments: ECHO }),
      fetch: () => raw.call({ name: "use_tool", arguments: ECHO }),
    };
    const samples: Record<string, number[]> = { stdio: [], sdk: [], fetch: [] };
    for (const call of Object.values(sides)) await timed(WARM_UP, call);
    for (let block = 0; block < SEQUENTIAL_BLOCKS; block++) {
      for (const [side, call] of Object.entries(sides)) samples[side].push(...await timed(PER_BLOCK, call));
    }
    for (const side of ["stdio", "sdk", "fetch"]) {
      add(`echo p50 over ${side}, µs`, percentile(samples[side], 50));
      add(`echo p99 over ${side}, µs`, percentile(samples[side], 99));
    }
    add("HTTP (SDK client) p50 over stdio, µs", percentile(samples.sdk, 50) - percentile(samples.stdio, 50));
    add("HTTP (fetch client) p50 over stdio, µs", percentile(samples.fetch, 50) - percentile(samples.stdio, 50));
    await throughput(clients, THROUGHPUT_WARM_UP);
    const cpu = cpuSeconds(served.pid).total;
    const own = process.cpuUsage();
    const began = performance.now();
    await throughput(clients, THROUGHPUT_CALLS);
    const seconds = (performance.now() - began) / 1000;
    const ownUsed = process.cpuUsage(own);
    add("8 clients x 8 in flight, calls/s", THROUGHPUT_CALLS / seconds);
    add("serving process CPU per call (8 x 8), µs", (cpuSeconds(served.pid).total - cpu) / THROUGHPUT_CALLS * 1e6);
    add("bench client CPU per call (8 x 8), µs", (ownUsed.user + ownUsed.system) / THROUGHPUT_CALLS);
  } finally {
    await Promise.allSettled(clients.map((client) => client.end()));
    await stdio.close();
    await served.stop();
  }
  if (!exe.endsWith(".ts")) await idleSessions(command, setup, add);
}

async function throughput(clients: Awaited<ReturnType<typeof httpClient>>[], total: number): Promise<void> {
  let started = 0;
  const worker = async (client: typeof clients[number]) => {
    while (started < total) {
      started++;
      const result = await client.callTool({ name: "use_tool", arguments: ECHO });
      if (result.isError) throw new Error(`echo failed: ${JSON.stringify(result).slice(0, 200)}`);
    }
  };
  await Promise.all(clients.flatMap((client) => Array.from({ length: 8 }, () => worker(client))));
}

/** A fresh `serve --http` with token clients: its RSS warmed up, then with IDLE_SESSIONS idle sessions. */
async function idleSessions(command: Command, setup: BenchSetup, add: Add): Promise<void> {
  const { configPath, tokens } = idleConfig(setup);
  const served = await startServe(command, configPath, setup.workbenchEnv, setup.dir);
  try {
    const { before, after } = await idleResident(served.url, served.pid, tokens);
    add("RSS before the idle sessions, MiB", before / MiB);
    add(`RSS with ${IDLE_SESSIONS} idle sessions, MiB`, after / MiB);
    add(`added by ${IDLE_SESSIONS} idle sessions, MiB`, (after - before) / MiB);
  } finally {
    await served.stop();
  }
}
