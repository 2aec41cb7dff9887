/**
 * What one store operation costs: set, get and take on RedisStore (a redis-server this script starts
 * on a free loopback port) against MemoryStore, one call at a time (the latency a request waits)
 * and 64 in flight (what a busy replica sees), for a value the size of an approval and of a page.
 *   bun scripts/store-latency.ts [--ops 5000] [--redis-url redis://...]
 *   deno run -A scripts/store-latency.ts [--ops 5000] [--redis-url redis://...]
 * Runs on the runtime that runs it (Bun's own Redis client under Bun, node-redis under Deno).
 * `--redis-url` measures a server of your own instead; its keys are under wb:{latency-...}: and deleted.
 */
import process from "node:process";
import { platform } from "#platform";
import type { Store } from "../src/store/store.ts";
import { MemoryStore } from "../src/store/memory-store.ts";
import { openRedisStore } from "../src/store/redis-store.ts";
import { percentile, round } from "./bench/stats.ts";
import { redisMissing, type RedisServer, startRedis } from "../tests/helpers/redis.ts";
import { isDeno } from "../tests/helpers/runtime.ts";

const USAGE = "usage: store-latency.ts [--ops N] [--redis-url URL]";
/** An approval or retry record is a short JSON object; a kept result page is up to tens of KiB. */
const SIZES = [{ label: "128 B", bytes: 128 }, { label: "16 KiB", bytes: 16 * 1024 }];
const IN_FLIGHT = 64;
const TTL_MS = 60_000;

function parseArgs(args: string[]): { ops: number; url?: string } {
  let ops = 5_000;
  let url: string | undefined;
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    if (flag === "--ops" && /^[1-9]\d*$/.test(value ?? "")) ops = Number(value);
    else if (flag === "--redis-url" && value) url = value;
    else {
      console.error(USAGE);
      process.exit(2);
    }
  }
  return { ops, url };
}

type Operation = "set" | "get" | "take";

/** Milliseconds of each call of `operation` on `keys`, `inFlight` at a time. */
async function timed(store: Store, operation: Operation, keys: string[], value: string, inFlight: number): Promise<number[]> {
  const samples: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < keys.length) {
      const key = keys[next++];
      const started = performance.now();
      if (operation === "set") await store.set(key, value, TTL_MS);
      else if (operation === "get") await store.get(key);
      else await store.take(key);
      samples.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return samples;
}

interface Row {
  store: string;
  size: string;
  inFlight: number;
  operation: Operation;
  p50: number;
  p99: number;
}

/** set, then get, then take of `ops` fresh keys; a warm-up round first, not counted. */
async function measure(name: string, store: Store, ops: number): Promise<Row[]> {
  const rows: Row[] = [];
  const prefix = `wb:{latency-${crypto.randomUUID()}}:`;
  for (const size of SIZES) {
    const value = "x".repeat(size.bytes);
    for (const inFlight of [1, IN_FLIGHT]) {
      const warm = Array.from({ length: Math.min(500, ops) }, (_, i) => `${prefix}warm:${i}`);
      for (const operation of ["set", "get", "take"] as const) await timed(store, operation, warm, value, inFlight);
      const keys = Array.from({ length: ops }, (_, i) => `${prefix}${size.bytes}:${inFlight}:${i}`);
      for (const operation of ["set", "get", "take"] as const) {
        const samples = await timed(store, operation, keys, value, inFlight);
        rows.push({ store: name, size: size.label, inFlight, operation, p50: percentile(samples, 50), p99: percentile(samples, 99) });
      }
    }
  }
  return rows;
}

const { ops, url } = parseArgs(process.argv.slice(2));
if (url === undefined && redisMissing()) {
  console.error(redisMissing());
  process.exit(1);
}
const server: RedisServer | undefined = url === undefined ? await startRedis() : undefined;
try {
  const redis = await openRedisStore(url ?? server!.url, platform.connectRedis, { log: (line) => console.error(line) });
  const memory = new MemoryStore();
  const rows = [...await measure("memory", memory, ops), ...await measure(`redis (${redis.name})`, redis, ops)];
  await redis.close();
  await memory.close();
  console.log(`${isDeno ? "Deno" : "Bun"}, ${ops} operations per line; milliseconds per call`);
  console.log("store | value | in flight | operation | p50 | p99");
  for (const row of rows) {
    console.log(`${row.store} | ${row.size} | ${row.inFlight} | ${row.operation} | ${round(row.p50, 3)} | ${round(row.p99, 3)}`);
  }
} finally {
  await server?.stop();
}
