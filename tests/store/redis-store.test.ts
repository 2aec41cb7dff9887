/**
 * The Redis store runs the store's contract against a real redis-server on loopback, under the
 * runtime that runs the tests (Bun's client or node-redis, through `#platform`); and what a shared
 * store adds: two replicas take one value once, hear each other's messages, and an outage fails
 * calls at once with an error naming the store (never its password), logged once, then over.
 * Where redis-server cannot be had, these tests skip saying why.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { platform } from "#platform";
import type { RedisLink } from "../../src/platform/types.ts";
import { openRedisStore, RedisStore, type RedisStoreOptions } from "../../src/store/redis-store.ts";
import { storeContract } from "../helpers/store-contract.ts";
import { type RedisServer, redisMissing, startRedis } from "../helpers/redis.ts";

const skip = redisMissing();
if (skip) console.log(`SKIPPED: the Redis store against redis-server: ${skip}`);
const PASSWORD = "s3cret-p@ss";
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

let shared: RedisServer | undefined;
after(() => shared?.stop());

/** One server for the file, with a password: every message is checked for it. */
async function server(): Promise<RedisServer> {
  return (shared ??= await startRedis(["--requirepass", PASSWORD]));
}

const withPassword = (port: number) => `redis://:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}`;

/** A store, what it logged, and how many times it was told the store is back. */
async function open(port: number, timings?: RedisStoreOptions["timings"]) {
  const logged: string[] = [];
  let restored = 0;
  const options = { log: (line: string) => logged.push(line), timings, restored: () => restored++ };
  const store = await openRedisStore(withPassword(port), platform.connectRedis, options);
  return { store, logged, restored: () => restored };
}

storeContract("RedisStore", async () => {
  const { store } = await open((await server()).port);
  return { store, advance: delay };
}, skip);

const unique = (part: string) => `wb:{store-${crypto.randomUUID()}}:${part}`;

/** Waits until `done`, for at most 10 s. */
async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) if (await done()) return;
  else await delay(20);
  assert.fail("Not within 10 s");
}

test("RedisStore: its name is the URL without the password", { skip }, async () => {
  const { port } = await server();
  const { store } = await open(port);
  try {
    assert.equal(store.name, `redis://127.0.0.1:${port}`);
  } finally {
    await store.close();
  }
});

test("RedisStore: of two replicas taking one value 100 times over, one gets it each time", { skip }, async () => {
  const { port } = await server();
  const [a, b] = [await open(port), await open(port)];
  try {
    for (let round = 0; round < 100; round++) {
      const key = unique(`approval-${round}`);
      await a.store.set(key, `retry-${round}`, 10_000);
      const takers = await Promise.all([a.store.take(key), b.store.take(key), a.store.take(key), b.store.take(key)]);
      assert.deepEqual(takers.filter((value) => value !== undefined), [`retry-${round}`], `round ${round}`);
    }
  } finally {
    await a.store.close();
    await b.store.close();
  }
});

test("RedisStore: a message published by one replica reaches the subscribers of another", { skip }, async () => {
  const { port } = await server();
  const [a, b] = [await open(port), await open(port)];
  try {
    const heard: string[] = [];
    const channel = unique("changes");
    const stop = await b.store.subscribe(channel, (message) => heard.push(message));
    await a.store.publish(channel, "tools/list_changed");
    await until(() => heard.length === 1);
    assert.deepEqual(heard, ["tools/list_changed"]);
    await stop();
  } finally {
    await a.store.close();
    await b.store.close();
  }
});

test("RedisStore: a counter's and a field's key carry their expiry from the write that made them", { skip }, async () => {
  const { port } = await server();
  const { store } = await open(port);
  try {
    const [counter, fields] = [unique("n"), unique("h")];
    await store.increment(counter, 60_000);
    await store.setField(fields, "dev", "1", 60_000);
    for (const key of [counter, fields]) {
      const left = await store.link.send(["PTTL", key]);
      assert.ok(typeof left === "number" && left > 50_000 && left <= 60_000, `${key}: ${left} ms left`);
    }
    await store.set(unique("s"), "x", 0.4);
    assert.equal(await store.touch(unique("none"), 1_000), false);
  } finally {
    await store.close();
  }
});

test("RedisStore: a key of another kind is refused with StoreReplyError naming the store, not read as data", { skip }, async () => {
  const { port } = await server();
  const { store } = await open(port);
  try {
    const key = unique("x");
    await store.set(key, "plain", 10_000);
    await assert.rejects(store.fields(key), (error: Error) => {
      assert.equal(error.name, "StoreReplyError");
      assert.equal(error.message.startsWith(`The store 'redis://127.0.0.1:${port}' refused HGETALL: WRONGTYPE`), true, error.message);
      return true;
    });
  } finally {
    await store.close();
  }
});

test("RedisStore: a reply of the wrong shape is an error, not a value", async () => {
  const replies = [42, ["a"], ["a", 1], "OK"];
  const link: RedisLink = {
    send: () => Promise.resolve(replies.shift() ?? null),
    subscribe: () => Promise.resolve(),
    unsubscribe: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
  const store = new RedisStore(link, "redis://poisoned:6379", new Map());
  const message = "The store 'redis://poisoned:6379' answered GET with a reply of the wrong shape";
  await assert.rejects(store.get("k"), { name: "StoreReplyError", message });
  await assert.rejects(store.fields("k"), { name: "StoreReplyError" });
  await assert.rejects(store.fields("k"), { name: "StoreReplyError" });
  await assert.rejects(store.increment("k", 1_000), { name: "StoreReplyError" });
});

/** The rejection of `call`, checked to name the store and not to hold the password. */
async function refusal(call: Promise<unknown>, name: string): Promise<Error> {
  const error = await call.then(() => assert.fail("Expected a rejection"), (error: Error) => error);
  assert.ok(error.message.includes(`'${name}'`), `names the store: ${error.message}`);
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    assert.ok(!cause.message.includes(PASSWORD) && !String(cause.stack).includes(PASSWORD), `no password in ${cause.message}`);
  }
  return error;
}

test("RedisStore: stopped, each call fails at once naming the store, logged once; started again, all works again", { skip }, async () => {
  const own = await startRedis(["--requirepass", PASSWORD]);
  const { store, logged, restored } = await open(own.port, { reconnectCapMs: 200 });
  try {
    const heard: string[] = [];
    const channel = unique("feed");
    await store.subscribe(channel, (message) => heard.push(message));
    await store.set(unique("k"), "v", 10_000);
    await own.kill();
    let slowest = 0;
    for (let i = 0; i < 50; i++) {
      const started = performance.now();
      const error = await refusal(store.get(unique("k")), store.name);
      slowest = Math.max(slowest, performance.now() - started);
      assert.equal(error.name, "StoreUnavailableError");
      assert.match(error.message, /^The store 'redis:\/\/127\.0\.0\.1:\d+' is unreachable: /);
    }
    assert.ok(slowest < 100, `each within 100 ms, the slowest ${slowest.toFixed(1)} ms`);
    await refusal(store.subscribe(unique("other"), () => {}), store.name);
    await refusal(store.take(unique("k")), store.name);
    assert.equal(logged.length, 1, `logged once: ${logged.join(" | ")}`);
    assert.match(logged[0], /^The store 'redis:\/\/127\.0\.0\.1:\d+' is unreachable \(.+\): what needs it fails until it is back$/);
    await own.start();
    await until(() => store.get(unique("k")).then(() => true, () => false));
    await store.set(unique("after"), "v", 10_000);
    await store.publish(channel, "after");
    await until(() => heard.includes("after"));
    assert.deepEqual(logged.slice(1), [`The store '${store.name}' is back`]);
    assert.equal(restored(), 1, "told once that the feed may have missed messages");
    assert.ok(!logged.join("\n").includes(PASSWORD));
  } finally {
    await store.close();
    await own.stop();
  }
});

test("RedisStore: frozen, a call fails within the command timeout, the next ones at once", { skip }, async () => {
  const own = await startRedis();
  const logged: string[] = [];
  const options = { log: (line: string) => logged.push(line), timings: { commandTimeoutMs: 300 } };
  const store = await openRedisStore(own.url, platform.connectRedis, options);
  try {
    own.pause();
    const started = performance.now();
    const late = { name: "StoreUnavailableError", message: /is unreachable: No answer to SET in 300 ms$/ };
    await assert.rejects(store.set(unique("k"), "v", 1_000), late);
    assert.ok(performance.now() - started < 1_500);
    const next = performance.now();
    await assert.rejects(store.get(unique("k")), { name: "StoreUnavailableError" });
    assert.ok(performance.now() - next < 100);
    own.resume();
    await until(() => store.get(unique("k")).then(() => true, () => false));
    assert.equal(logged.length, 2, logged.join(" | "));
  } finally {
    own.resume();
    await store.close();
    await own.stop();
  }
});

test("RedisStore: opened where nothing listens or with a wrong password, it says so naming the store", { skip }, async () => {
  const { port } = await server();
  const none = await startRedis();
  await none.kill();
  try {
    const log = () => {};
    const down = await refusal(openRedisStore(withPassword(none.port), platform.connectRedis, { log }), `redis://127.0.0.1:${none.port}`);
    assert.equal(down.name, "StoreUnavailableError");
    const wrongPassword = openRedisStore(`redis://:wrong@127.0.0.1:${port}/2`, platform.connectRedis, { log });
    const wrong = await refusal(wrongPassword, `redis://127.0.0.1:${port}/2`);
    assert.equal(wrong.name, "StoreReplyError");
    assert.match(wrong.message, /refused the connection: WRONGPASS/);
  } finally {
    await none.stop();
  }
});

/** The ACL docs/store.md gives: the store's commands on its own keys and channels, nothing else. */
const STORE_ACL = ["~wb:*", "&wb:*", "-@all", "+get", "+set", "+getdel", "+del", "+pexpire", "+eval", "+incr", "+hset", "+hgetall", "+hdel",
  "+publish", "+subscribe", "+unsubscribe", "+ping", "+hello", "+select"];

test("RedisStore: a user allowed only the store's commands on wb:* keys and channels does all the store does", { skip }, async () => {
  const own = await startRedis(["--user", "default", "off", "--user", "workbench", "on", ">pw", ...STORE_ACL]);
  const store = await openRedisStore(`redis://workbench:pw@127.0.0.1:${own.port}/1`, platform.connectRedis, { log: () => {} });
  try {
    const [key, fields, counter, channel] = [unique("k"), unique("h"), unique("n"), unique("c")];
    const heard: string[] = [];
    const stop = await store.subscribe(channel, (message) => heard.push(message));
    await store.set(key, "v", 10_000);
    assert.equal(await store.add(key, "w", 10_000), false);
    assert.equal(await store.get(key), "v");
    assert.equal(await store.touch(key, 10_000), true);
    assert.equal(await store.take(key), "v");
    assert.equal(await store.increment(counter, 10_000), 1);
    await store.setField(fields, "a", "1", 10_000);
    assert.deepEqual(await store.fields(fields), { a: "1" });
    await store.deleteField(fields, "a");
    await store.delete(counter, fields);
    await store.publish(channel, "m");
    await until(() => heard.length === 1);
    await stop();
    await assert.rejects(store.get("elsewhere"), { name: "StoreReplyError", message: /NOPERM/ });
  } finally {
    await store.close();
    await own.stop();
  }
});
