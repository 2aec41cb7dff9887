/**
 * The state seam over a real redis-server on loopback: two SessionStates on one Redis are two
 * replicas, and what a session keeps (approvals, retries, open toolboxes, cut results) is found on
 * either. Where redis-server cannot be had, these tests skip saying why.
 */
import { after } from "node:test";
import { platform } from "#platform";
import { openRedisStore } from "../../src/store/redis-store.ts";
import { type RedisServer, redisMissing, startRedis } from "../helpers/redis.ts";
import { sessionStateContract } from "../helpers/session-state-contract.ts";

const skip = redisMissing();
if (skip) console.log(`SKIPPED: the state seam over redis-server: ${skip}`);

let server: RedisServer | undefined;
after(() => server?.stop());

sessionStateContract("SessionStates over RedisStore", async () => {
  server ??= await startRedis();
  return openRedisStore(`redis://127.0.0.1:${server.port}`, platform.connectRedis, { log: () => {} });
}, skip);
