/**
 * What a shared store costs a call (issue 48): use_tool echo through `serve --http` with the memory
 * store and with `--store redis://…` (a redis-server this script starts on a free loopback port),
 * one call at a time, for a 2025-11-25 client and a 2026-07-28 one (the official SDK clients);
 * the two replicas take turns block by block, so the machine's load falls on both alike. Then the
 * bytes Redis keeps per idle 2025 session (the store's used_memory before and after IDLE sessions).
 *   bun scripts/store-calls.ts [--calls 400] [--blocks 6] [--idle 1000]
 * Runs `bun src/main.ts`, or the executable named by WORKBENCH_BIN.
 */
import { spawnSync } from "node:child_process";
import process from "node:process";
import { Client as V2Client, StreamableHTTPClientTransport as V2HttpTransport } from "@modelcontextprotocol/client";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client } from "../tests/helpers/sdk.ts";
import { startHttpWorkbench } from "../tests/helpers/http-workbench.ts";
import { startRedis } from "../tests/helpers/redis.ts";
import { fx } from "../tests/helpers/toolbox.ts";
import { percentile, round } from "./bench/stats.ts";
import { rawSession } from "./bench/idle-sessions.ts";

const USAGE = "usage: store-calls.ts [--calls N] [--blocks N] [--idle N]";
const CONFIG = { toolboxes: { dev: { mcpServers: { fx: fx("store") } } } };
const ECHO = { tool: { toolbox: "dev", server: "fx", name: "echo" }, arguments: { text: "hello" } };

function parseArgs(args: string[]): { calls: number; blocks: number; idle: number } {
  const figures = { calls: 400, blocks: 6, idle: 1_000 };
  for (let i = 0; i < args.length; i += 2) {
    const key = args[i]?.replace(/^--/, "") as keyof typeof figures;
    if (!(key in figures) || !/^[1-9]\d*$/.test(args[i + 1] ?? "")) {
      console.error(USAGE);
      process.exit(2);
    }
    figures[key] = Number(args[i + 1]);
  }
  return figures;
}

type Echo = () => Promise<unknown>;

async function legacyEcho(url: string): Promise<{ echo: Echo; close(): Promise<void> }> {
  const client = new Client({ name: "store-2025", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } });
  return { echo: () => client.callTool({ name: "use_tool", arguments: ECHO }), close: () => client.close() };
}

async function modernEcho(url: string): Promise<{ echo: Echo; close(): Promise<void> }> {
  const options = { capabilities: {}, versionNegotiation: { mode: { pin: "2026-07-28" as const } } };
  const client = new V2Client({ name: "store-2026", version: "2.4.0" }, options);
  await client.connect(new V2HttpTransport(new URL(url)));
  return { echo: () => client.callTool({ name: "use_tool", arguments: ECHO }), close: () => client.close() };
}

/** Milliseconds of each of `count` calls made one at a time. */
async function timed(echo: Echo, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let call = 0; call < count; call++) {
    const began = performance.now();
    await echo();
    times.push(performance.now() - began);
  }
  return times;
}

const { calls, blocks, idle } = parseArgs(process.argv.slice(2));
const redis = await startRedis();
const memory = await startHttpWorkbench(CONFIG);
const shared = await startHttpWorkbench(CONFIG, {}, "127.0.0.1:0", ["--store", redis.url]);
try {
  for (const [era, open] of [["2025-11-25", legacyEcho], ["2026-07-28", modernEcho]] as const) {
    const sides = { memory: await open(memory.url), redis: await open(shared.url) };
    const times: Record<keyof typeof sides, number[]> = { memory: [], redis: [] };
    // A warm-up of a block each, then the blocks in turn.
    for (const side of ["memory", "redis"] as const) await timed(sides[side].echo, Math.ceil(calls / 4));
    for (let block = 0; block < blocks; block++) {
      const order: (keyof typeof sides)[] = block % 2 === 0 ? ["memory", "redis"] : ["redis", "memory"];
      for (const side of order) {
        times[side].push(...await timed(sides[side].echo, Math.ceil(calls / blocks)));
      }
    }
    const p50 = (side: keyof typeof sides) => percentile(times[side], 50);
    const p95 = (side: keyof typeof sides) => percentile(times[side], 95);
    console.log(
      `${era} use_tool echo, ms: memory p50 ${round(p50("memory"), 3)} p95 ${round(p95("memory"), 3)}; ` +
        `redis p50 ${round(p50("redis"), 3)} p95 ${round(p95("redis"), 3)}; added p50 ${round(p50("redis") - p50("memory"), 3)}`,
    );
    await Promise.all(Object.values(sides).map((side) => side.close()));
  }
  // redis-cli comes with Debian's redis-server (redis-tools).
  const cli = (...args: string[]) => spawnSync("redis-cli", ["-p", String(redis.port), ...args], { encoding: "utf8" }).stdout;
  const usedMemory = () => Number(/used_memory:(\d+)/.exec(cli("INFO", "memory"))?.[1]);
  const keys = () => Number(cli("DBSIZE").trim());
  const [bytesBefore, keysBefore] = [usedMemory(), keys()];
  for (let session = 0; session < idle; session++) await rawSession(shared.url);
  const [bytesAfter, keysAfter] = [usedMemory(), keys()];
  console.log(
    `${idle} idle 2025-11-25 sessions: ${keysAfter - keysBefore} keys, ${round((bytesAfter - bytesBefore) / idle, 0)} bytes each in Redis ` +
      `(used_memory ${round(bytesBefore / 1024 / 1024, 2)} -> ${round(bytesAfter / 1024 / 1024, 2)} MiB)`,
  );
} finally {
  await Promise.allSettled([memory.stop(), shared.stop()]);
  await redis.stop();
}
