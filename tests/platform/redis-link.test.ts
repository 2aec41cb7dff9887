/**
 * The Redis link's contract (Platform.connectRedis), run against the adapter the current runtime
 * resolves through `#platform`: `bun test` checks Bun's own client, `deno test` node-redis. Against
 * a real redis-server on loopback; where there is none, the tests skip saying why.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import process from "node:process";
import { platform } from "#platform";
import type { RedisAddress, RedisLink, RedisTimings } from "../../src/platform/types.ts";
import { type RedisServer, redisMissing, startRedis } from "../helpers/redis.ts";
import { isDeno, repoRoot, runScript } from "../helpers/runtime.ts";

const skip = redisMissing();
if (skip) console.log(`SKIPPED: the Redis link against redis-server: ${skip}`);
const TIMINGS: RedisTimings = { connectTimeoutMs: 1_000, commandTimeoutMs: 400, reconnectCapMs: 200 };

let shared: RedisServer | undefined;
after(() => shared?.stop());

/** The server most tests share (each uses keys of its own). */
async function server(): Promise<RedisServer> {
  return (shared ??= await startRedis());
}

const address = (port: number, extra: Partial<RedisAddress> = {}): RedisAddress => ({
  host: "127.0.0.1",
  port,
  tls: false,
  database: 0,
  ...extra,
});

/** A link with its events written down. */
async function connect(port: number, extra: Partial<RedisAddress> = {}, timings = TIMINGS) {
  const lost: string[] = [];
  let restored = 0;
  const messages: string[] = [];
  const link = await platform.connectRedis(address(port, extra), timings, {
    lost: (error) => lost.push(error.message),
    restored: () => restored++,
    message: (channel, message) => messages.push(`${channel}:${message}`),
  });
  return { link, lost, restored: () => restored, messages };
}

const unique = (part: string) => `wb:{link-${crypto.randomUUID()}}:${part}`;
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `done`, for at most `ms`. */
async function until(done: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) assert.fail(`Not within ${ms} ms`);
    await delay(20);
  }
}

/** True once a command goes through. */
const answers = (link: RedisLink) => () => link.send(["PING"]).then(() => true, () => false);

test("redis link: replies come as RESP2 shapes, and an error reply is named RedisReply and harms nothing", { skip }, async () => {
  const { link } = await connect((await server()).port);
  try {
    const key = unique("k");
    assert.equal(await link.send(["SET", key, "é\u0000x", "PX", "5000"]), "OK");
    assert.equal(await link.send(["GET", key]), "é\u0000x");
    assert.equal(await link.send(["GET", unique("none")]), null);
    assert.equal(await link.send(["SET", key, "y", "NX"]), null);
    assert.equal(await link.send(["EXISTS", key]), 1, "a count, not a boolean");
    const hash = unique("h");
    assert.equal(await link.send(["HSET", hash, "a", "1", "b", "2"]), 2);
    const fields = await link.send(["HGETALL", hash]);
    assert.ok(Array.isArray(fields));
    assert.deepEqual(fields, fields.length === 4 && fields[0] === "a" ? ["a", "1", "b", "2"] : ["b", "2", "a", "1"]);
    assert.deepEqual(await link.send(["HGETALL", unique("none")]), []);
    const refused = await link.send(["INCR", hash]).then(() => undefined, (error: Error) => error);
    assert.equal(refused?.name, "RedisReply");
    assert.match(refused!.message, /WRONGTYPE/);
    assert.equal(await link.send(["GETDEL", key]), "é\u0000x");
    await link.send(["DEL", hash]);
  } finally {
    await link.close();
  }
});

test("redis link: messages of the channels subscribed, none after unsubscribe", { skip }, async () => {
  const { port } = await server();
  const { link, messages } = await connect(port);
  try {
    const [one, two] = [unique("one"), unique("two")];
    await link.subscribe(one);
    await link.subscribe(two);
    await link.send(["PUBLISH", one, "a"]);
    await link.send(["PUBLISH", two, "b"]);
    await until(() => messages.length === 2);
    await link.unsubscribe(one);
    await link.send(["PUBLISH", one, "c"]);
    await link.send(["PUBLISH", two, "d"]);
    await until(() => messages.length === 3);
    await delay(50);
    assert.deepEqual(messages, [`${one}:a`, `${two}:b`, `${two}:d`]);
  } finally {
    await link.close();
  }
});

test("redis link: a killed server fails each call at once, is lost once, and is back when it returns, channels too", { skip }, async () => {
  const own = await startRedis();
  const { link, lost, restored, messages } = await connect(own.port);
  try {
    const channel = unique("feed");
    await link.subscribe(channel);
    await own.kill();
    await until(() => lost.length > 0 || link.send(["PING"]).then(() => false, () => true));
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      const error = await link.send(["GET", "k"]).then(() => undefined, (error: Error) => error);
      assert.equal(error?.name, "RedisUnreachable");
      assert.ok(performance.now() - started < 100, `refused at once, not after ${performance.now() - started} ms`);
    }
    await assert.rejects(link.subscribe(unique("other")), { name: "RedisUnreachable" });
    await delay(500);
    assert.equal(lost.length, 1, `one loss told, not ${lost.length}`);
    await own.start();
    await until(answers(link));
    await until(() => restored() === 1);
    await link.send(["PUBLISH", channel, "after"]);
    await until(() => messages.includes(`${channel}:after`));
    assert.equal(lost.length, 1);
    assert.equal(restored(), 1);
  } finally {
    await link.close();
    await own.stop();
  }
});

test("redis link: a frozen server fails a call within the command timeout, then the others at once, until it thaws", { skip }, async () => {
  const own = await startRedis();
  const { link, lost, restored } = await connect(own.port);
  try {
    own.pause();
    const started = performance.now();
    await assert.rejects(link.send(["GET", "k"]), { name: "RedisUnreachable", message: /No answer to GET in 400 ms/ });
    const waited = performance.now() - started;
    assert.ok(waited >= 350 && waited < 1_500, `bounded by the timeout: ${waited} ms`);
    const next = performance.now();
    await assert.rejects(link.send(["GET", "k"]), { name: "RedisUnreachable" });
    assert.ok(performance.now() - next < 100, "the next at once");
    assert.equal(lost.length, 1);
    own.resume();
    await until(answers(link));
    assert.equal(restored(), 1);
  } finally {
    own.resume();
    await link.close();
    await own.stop();
  }
});

test("redis link: a server refusing every reconnection is retried at most once per cap, not in a loop; lost once", { skip }, async () => {
  const own = await startRedis(["--requirepass", "first"]);
  const { link, lost, restored } = await connect(own.port, { password: "first" });
  try {
    await own.kill();
    await own.start(["--requirepass", "second"]);
    await delay(2_000);
    const counter = await connect(own.port, { password: "second" });
    const info = String(await counter.link.send(["INFO", "stats"]));
    await counter.link.close();
    const attempts = Number(/total_connections_received:(\d+)/.exec(info)?.[1]);
    // 50, 100, 200, 200, ... ms: about 12 in 2 s (Bun asks once more after each, to say why).
    assert.ok(attempts >= 3 && attempts <= 40, `${attempts} connections in 2 s`);
    assert.equal(lost.length, 1);
    assert.equal(restored(), 0);
    await assert.rejects(link.send(["PING"]), { name: "RedisUnreachable", message: /WRONGPASS|NOAUTH|invalid/i });
  } finally {
    await link.close();
    await own.stop();
  }
});

test("redis link: no server refuses the connection at once, named RedisUnreachable", { skip }, async () => {
  const own = await startRedis();
  await own.kill();
  try {
    const started = performance.now();
    await assert.rejects(connect(own.port), { name: "RedisUnreachable", message: /refused/i });
    assert.ok(performance.now() - started < TIMINGS.connectTimeoutMs + 500);
  } finally {
    await own.stop();
  }
});

test("redis link: a user and password with @ : / % in them, a database, and a wrong password named RedisReply", { skip }, async () => {
  const password = "p@ss:/%w rd";
  const own = await startRedis(["--user", "default", "off", "--user", "alice", "on", `>${password}`, "~*", "&*", "+@all"]);
  try {
    const { link } = await connect(own.port, { username: "alice", password, database: 3 });
    const other = await connect(own.port, { username: "alice", password, database: 0 });
    try {
      await link.send(["SET", "k", "in three"]);
      assert.equal(await link.send(["GET", "k"]), "in three");
      assert.equal(await other.link.send(["GET", "k"]), null, "another database");
      assert.equal(await link.send(["ACL", "WHOAMI"]), "alice");
    } finally {
      await link.close();
      await other.link.close();
    }
    await assert.rejects(connect(own.port, { username: "alice", password: "wrong" }), { name: "RedisReply", message: /WRONGPASS/ });
    await assert.rejects(connect(own.port, { username: "alice", password, database: 99 }), { name: "RedisReply", message: /DB index/ });
  } finally {
    await own.stop();
  }
});

test("redis link: once closed, calls reject and no event comes", { skip }, async () => {
  const own = await startRedis();
  const { link, lost } = await connect(own.port);
  await link.close();
  try {
    await assert.rejects(link.send(["PING"]), { name: "RedisUnreachable", message: /closed/ });
    await own.kill();
    await delay(300);
    assert.deepEqual(lost, []);
  } finally {
    await own.stop();
  }
});

/** A certificate for localhost and 127.0.0.1 and its key, made by openssl in `dir`; undefined without openssl. */
function certificate(dir: string): { cert: string; key: string } | undefined {
  const [cert, key] = [`${dir}/cert.pem`, `${dir}/key.pem`];
  const made = spawnSync("openssl", [
    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1",
    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
  ], { encoding: "utf8", timeout: 30_000 });
  return made.status === 0 ? { cert, key } : undefined;
}

test("redis link: rediss speaks TLS and verifies the certificate; trusted, it answers (Bun: NODE_EXTRA_CA_CERTS)", { skip }, async () => {
  const dir = mkdtempSync(`${tmpdir()}/workbench-redis-tls-`);
  try {
    const pem = certificate(dir);
    if (pem === undefined) return void console.log("SKIPPED: rediss: openssl cannot make a certificate here");
    const own = await startRedis([], pem);
    try {
      await assert.rejects(connect(own.port, { tls: true }), { name: "RedisUnreachable", message: /self[- ]signed certificate/ });
      await assert.rejects(connect(own.port, { tls: false }), { name: "RedisUnreachable" });
      if (isDeno) return void console.log("SKIPPED: rediss with a private authority: node:tls under Deno reads no extra CA file");
      const { command, args } = runScript(`${repoRoot}/tests/platform/fixtures/redis-ping.ts`, [String(own.port)]);
      const ping = spawnSync(command, args, { encoding: "utf8", timeout: 30_000, env: { ...process.env, NODE_EXTRA_CA_CERTS: pem.cert } });
      assert.equal(ping.stdout.trim(), "PONG", ping.stderr);
    } finally {
      await own.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
