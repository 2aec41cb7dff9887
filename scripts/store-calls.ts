/**
 * What a shared store costs a call (issue 48): use_tool echo through `serve --http` with the memory
 * store and with `--store redis://…` (a redis-server this script starts on a free loopback port),
 * one call at a time, for a 2025-11-25 client and a 2026-07-28 one (the official SDK clients);
 * the two replicas take turns block by block, so the machine's load falls on both alike. Then the
 * bytes Redis keeps per idle 2025 session (the store's used_memory before and after IDLE sessions),
 * per kept result (PAGED results of 100,000 characters cut into pages), and what reading a page
 * costs: on the replica that kept the result, memory against Redis, and on another replica.
 *   bun scripts/store-calls.ts [--calls 400] [--blocks 6] [--idle 1000] [--paged 20]
 * Runs `bun src/main.ts`, or the executable named by WORKBENCH_BIN.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import process from "node:process";
import { Client as V2Client, StreamableHTTPClientTransport as V2HttpTransport } from "@modelcontextprotocol/client";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client } from "../tests/helpers/sdk.ts";
import { startHttpWorkbench } from "../tests/helpers/http-workbench.ts";
import { startRedis } from "../tests/helpers/redis.ts";
import { fx } from "../tests/helpers/toolbox.ts";
import { percentile, round } from "./bench/stats.ts";
import { rawSession } from "./bench/idle-sessions.ts";

const USAGE = "usage: store-calls.ts [--calls N] [--blocks N] [--idle N] [--paged N]";
/** The timed clients' token, and the idle sessions' (a client may hold 256 sessions: five clients hold 1,280). */
const TOKEN = "store-bench-token-0123456789";
const IDLE_TOKENS = Array.from({ length: 5 }, (_, index) => `store-idle-token-${index}`);
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const CONFIG = {
  toolboxes: { dev: { mcpServers: { fx: fx("store"), paged: fx("store", { maxResultTokens: 1_000 }) } } },
  serve: { clients: Object.fromEntries([TOKEN, ...IDLE_TOKENS].map((token, index) => [`c${index}`, { tokenSha256: sha256(token), toolboxes: ["*"] }])) },
};
const AUTHORIZED = { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } };
const ECHO = { tool: { toolbox: "dev", server: "fx", name: "echo" }, arguments: { text: "hello" } };

function parseArgs(args: string[]): { calls: number; blocks: number; idle: number; paged: number } {
  const figures = { calls: 400, blocks: 6, idle: 1_000, paged: 20 };
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
  await client.connect(new StreamableHTTPClientTransport(new URL(url), AUTHORIZED));
  await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } });
  return { echo: () => client.callTool({ name: "use_tool", arguments: ECHO }), close: () => client.close() };
}

async function modernEcho(url: string): Promise<{ echo: Echo; close(): Promise<void> }> {
  const options = { capabilities: {}, versionNegotiation: { mode: { pin: "2026-07-28" as const } } };
  const client = new V2Client({ name: "store-2026", version: "2.4.0" }, options);
  await client.connect(new V2HttpTransport(new URL(url), AUTHORIZED));
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

/** A 2026-07-28 client's use_tool, its answer's text (its hub's key is the same on every replica). */
async function modernUse(url: string): Promise<{ use(args: Record<string, unknown>): Promise<string>; close(): Promise<void> }> {
  const options = { capabilities: {}, versionNegotiation: { mode: { pin: "2026-07-28" as const } } };
  const client = new V2Client({ name: "store-pages", version: "2.4.0" }, options);
  await client.connect(new V2HttpTransport(new URL(url), AUTHORIZED));
  const textOf = (result: { content?: unknown }) => ((result.content ?? []) as { text?: string }[]).map((item) => item.text ?? "").join("");
  return { use: async (args) => textOf(await client.callTool({ name: "use_tool", arguments: args })), close: () => client.close() };
}

const PAGED_TEXT = "x".repeat(100_000);
const PAGE_AT = 50_000;
const readArgs = (id: string) => ({ tool: { toolbox: "dev", server: "workbench", name: "read_result" }, arguments: { id, offset: PAGE_AT } });
const keptId = (answer: string) => /"id":"(r\d+)"/.exec(answer)?.[1] ?? "";

/** Kept results in Redis (bytes each) and a page read's p50: where it was kept, memory and Redis; and on another replica. */
async function pagedFigures(urls: { memory: string; redis: string; other: string }, count: number, usedMemory: () => number) {
  const paged = { tool: { toolbox: "dev", server: "paged", name: "echo" }, arguments: { text: PAGED_TEXT } };
  const memory = await modernUse(urls.memory);
  const redis = await modernUse(urls.redis);
  const other = await modernUse(urls.other);
  try {
    const before = usedMemory();
    const ids: string[] = [];
    for (let result = 0; result < count; result++) ids.push(keptId(await redis.use(paged)));
    console.log(`${count} kept results of ${PAGED_TEXT.length} characters: ${round((usedMemory() - before) / count, 0)} bytes each in Redis`);
    const memoryId = keptId(await memory.use(paged));
    const times = async (side: typeof memory, id: string, n: number) => {
      const spent: number[] = [];
      for (let read = 0; read < n; read++) {
        const began = performance.now();
        await side.use(readArgs(id));
        spent.push(performance.now() - began);
      }
      return spent;
    };
    const [onMemory, onRedis] = [await times(memory, memoryId, 50), await times(redis, ids.at(-1)!, 50)];
    // Another replica: the first read of each result fetches and parses it whole; the next pages of it do not.
    const elsewhere: number[] = [];
    for (const id of ids.slice(0, -1)) elsewhere.push(...await times(other, id, 1));
    console.log(
      `read_result of a page (p50, ms): memory ${round(percentile(onMemory, 50), 3)}, redis where kept ${round(percentile(onRedis, 50), 3)}, ` +
        `redis on another replica, its first read ${round(percentile(elsewhere, 50), 3)}`,
    );
  } finally {
    await Promise.allSettled([memory.close(), redis.close(), other.close()]);
  }
}

const { calls, blocks, idle, paged } = parseArgs(process.argv.slice(2));
const redis = await startRedis();
const memory = await startHttpWorkbench(CONFIG);
const shared = await startHttpWorkbench(CONFIG, {}, "127.0.0.1:0", ["--store", redis.url]);
const sharedOther = await startHttpWorkbench(CONFIG, {}, "127.0.0.1:0", ["--store", redis.url]);
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
  await pagedFigures({ memory: memory.url, redis: shared.url, other: sharedOther.url }, paged, usedMemory);
  const [bytesBefore, keysBefore] = [usedMemory(), keys()];
  // On the two replicas in turn: one process holds at most 1,000 live sessions, the timed ones included.
  for (let session = 0; session < idle; session++) {
    const url = session % 2 === 0 ? shared.url : sharedOther.url;
    await rawSession(url, { Authorization: `Bearer ${IDLE_TOKENS[session % IDLE_TOKENS.length]}` });
  }
  const [bytesAfter, keysAfter] = [usedMemory(), keys()];
  console.log(
    `${idle} idle 2025-11-25 sessions on two replicas: ${keysAfter - keysBefore} keys, ${round((bytesAfter - bytesBefore) / idle, 0)} bytes each in Redis ` +
      `(used_memory ${round(bytesBefore / 1024 / 1024, 2)} -> ${round(bytesAfter / 1024 / 1024, 2)} MiB)`,
  );
} finally {
  await Promise.allSettled([memory.stop(), shared.stop(), sharedOther.stop()]);
  await redis.stop();
}
