/**
 * The pool and a session's registry take a new configuration (it applies live): reconciled by
 * server definition, an unchanged server is the same shared server (its process goes on) with the
 * new filters, a changed or removed one is given back to be drained and stopped, and a changed
 * process setting is a change. drained() waits for calls in flight, bounded. Sessions that differ
 * only in extensions their server did not declare share its process.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { platform } from "#platform";
import { validateConfig } from "../../src/config/index.ts";
import { ServerPool } from "../../src/toolboxes/pool.ts";
import { ToolboxRegistry } from "../../src/toolboxes/registry.ts";
import { fixtureServer } from "../helpers/runtime.ts";
import { ListingCache } from "../../src/cache/listing-cache.ts";
import { tempDir } from "../helpers/workbench.ts";
import { writeFileSync } from "node:fs";
import { commandUpstream } from "../../src/cli/command-upstream.ts";

const host = { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {} };
const server = (label: string, extra: Record<string, unknown> = {}) =>
  fixtureServer("fixture-server.ts", { env: { FIXTURE_LABEL: label }, ...extra });

test("pool: a new configuration keeps unchanged servers with new filters, retires changed and removed ones, and a new open finds added ones", async () => {
  const before = validateConfig({
    toolboxes: { a: { mcpServers: { s: server("one") } }, b: { mcpServers: { t: server("two") } }, gone: { mcpServers: { u: server("three") } } },
  });
  const pool = new ServerPool(before, host);
  const registry = new ToolboxRegistry(before, pool);
  try {
    const [a, b, gone] = await Promise.all([registry.open("a"), registry.open("b"), registry.open("gone")]);
    const kept = a.servers[0].shared;
    const changed = b.servers[0].shared;
    const removed = gone.servers[0].shared;
    const next = validateConfig({
      toolboxes: {
        a: { mcpServers: { s: server("one", { toolFilters: ["echo"] }) } },
        b: { mcpServers: { t: server("two, changed") } },
        c: { mcpServers: { v: server("one") } },
      },
    });
    const retired = pool.reconfigure(next);
    registry.reconfigure(next);
    assert.deepEqual(new Set(retired), new Set([changed, removed]));
    assert.equal(registry.get("gone"), undefined, "a removed toolbox is no longer open");
    assert.equal(registry.get("a")!.servers[0].shared, kept, "the unchanged definition is the same shared server");
    assert.ok(kept.live);
    assert.deepEqual(registry.get("a")!.servers[0].tools.map((tool) => tool.name), ["echo"], "the new filters, no restart");
    const newB = registry.get("b")!.servers[0].shared;
    assert.notEqual(newB, changed, "the changed definition is a new shared server");
    // Retired, not stopped yet: its calls may still be in flight.
    assert.ok(changed.live);
    assert.equal(await changed.drained(1_000), true);
    await Promise.all(retired.map((shared) => shared.close()));
    assert.equal(changed.live, false);
    // c lists the definition a has: one server for both.
    assert.equal((await registry.open("c")).servers[0].shared, kept);
    const connected = await registry.get("b")!.servers[0].shared.connected();
    assert.ok(connected.ok);
    assert.equal(pool.running, 2, "one for 'one', one for 'two, changed'");

    // A process setting is a change too: the server starts again with it.
    const slower = validateConfig({ toolboxes: { a: { mcpServers: { s: server("one", { connectTimeoutMs: 12_345 }) } } } });
    assert.deepEqual(pool.reconfigure(slower), [kept, newB]);
  } finally {
    await registry.closeAll();
    await pool.closeAll();
  }
});

test("pool: drained() waits for a call in flight, and no longer than it is told", async () => {
  const config = validateConfig({ toolboxes: { a: { mcpServers: { s: server("slow") } } } });
  const pool = new ServerPool(config, host);
  const registry = new ToolboxRegistry(config, pool);
  try {
    const [slot] = (await registry.open("a")).servers;
    const connected = await slot.shared.connected();
    assert.ok(connected.ok);
    // A call far longer than the wait, so that a loaded machine's late timers cannot let it end first.
    const call = slot.on(connected.serverSession).call("sleep", { ms: 3_000 }, {});
    const started = Date.now();
    assert.equal(await slot.shared.drained(50), false, "bounded: the call is still running");
    assert.ok(Date.now() - started < 1_500, "not waited for the call's 3 s");
    assert.equal(await slot.shared.drained(10_000), true);
    assert.equal((await call).isError, undefined);
  } finally {
    await registry.closeAll();
    await pool.closeAll();
  }
});

test("pool: a server stopped for being idle stays stopped when the configuration changes around it; one added to an open toolbox starts", async () => {
  const idle = server("idle", { idleTimeoutMs: 150 });
  const config = validateConfig({ toolboxes: { a: { mcpServers: { s: idle } } } });
  const pool = new ServerPool(config, host);
  const registry = new ToolboxRegistry(config, pool);
  try {
    const [slot] = (await registry.open("a")).servers;
    const deadline = Date.now() + 5_000;
    while (slot.shared.live && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(slot.shared.live, false, "stopped for being idle");
    const next = validateConfig({ toolboxes: { a: { mcpServers: { s: { ...idle, toolFilters: ["echo"] }, t: server("added") } } } });
    assert.deepEqual(pool.reconfigure(next), []);
    registry.reconfigure(next);
    const [kept, added] = registry.get("a")!.servers;
    assert.equal(kept.shared, slot.shared);
    const started = Date.now() + 5_000;
    while (!added.shared.live && Date.now() < started) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(added.shared.live, "the added server started with its toolbox open");
    assert.equal(kept.shared.live, false, "the idle one was not started again by the edit");
  } finally {
    await registry.closeAll();
    await pool.closeAll();
  }
});

test("registry: a server found before the configuration changed is reached as configured now, and one removed is refused, never started", () => {
  const before = validateConfig({ toolboxes: { a: { mcpServers: { s: server("one"), gone: server("gone") } } } });
  const pool = new ServerPool(before, host);
  const registry = new ToolboxRegistry(before, pool);
  const [s, gone] = registry.configured;
  const next = validateConfig({ toolboxes: { a: { mcpServers: { s: server("one, changed") } } } });
  pool.reconfigure(next);
  registry.reconfigure(next);
  assert.equal(registry.slot(s).config, next.toolboxes.a.mcpServers.s, "the stale entry leads to the server as configured now");
  assert.equal(registry.slot(s), registry.slot(registry.configured[0]));
  assert.throws(() => registry.slot(gone), { message: "Server 'gone' is no longer in toolbox 'a' of the configuration" });
  assert.equal(pool.running, 0, "nothing was started");
});

test("pool: a server started for a client (${WORKBENCH_CLIENT} in its env) is kept by a configuration change that leaves it as it was", async () => {
  const config = (description: string) =>
    validateConfig({ toolboxes: { a: { description, mcpServers: { s: server("one", { env: { FIXTURE_LABEL: "for ${WORKBENCH_CLIENT}" } }) } } } });
  const before = config("before");
  const pool = new ServerPool(before, host);
  const registry = new ToolboxRegistry(before, pool, { client: { name: "alice" } });
  try {
    const opened = await registry.open("a");
    assert.ok(opened.servers[0].serverSession, opened.servers[0].error ?? "");
    assert.deepEqual(pool.reconfigure(config("after")), [], "nothing about the server changed");
  } finally {
    await registry.closeAll();
    await pool.closeAll();
  }
});

test("pool: what a process started for one client lists is kept in the listing cache for that client alone", async () => {
  const cache = new ListingCache({ ...platform, env: { ...platform.env, WORKBENCH_CACHE_DIR: `${tempDir()}/cache` } });
  const mine = server("one", { env: { FIXTURE_LABEL: "for ${WORKBENCH_CLIENT}" } });
  const shared = server("two");
  const config = validateConfig({ toolboxes: { a: { mcpServers: { mine, shared } } } });
  const pool = new ServerPool(config, host, { cache });
  const registry = new ToolboxRegistry(config, pool, { client: { name: "alice" } });
  try {
    const opened = await registry.open("a");
    assert.ok(opened.servers.every((slot) => slot.serverSession), opened.servers.map((slot) => slot.error).join(", "));
    const [kept, notKept] = [config.toolboxes.a.mcpServers.shared, config.toolboxes.a.mcpServers.mine];
    // The listings are written in the background: wait (bounded) for the one that is kept.
    for (let tries = 0; tries < 60 && !(await cache.read(kept, "alice")); tries++) await new Promise((resolve) => setTimeout(resolve, 50));
    await cache.flush();
    assert.ok((await cache.read(kept, "alice"))?.length, "alice's own process's listing is kept for alice");
    // Issue 37 §6: listings are kept per client where processes are; never read for another, nor for the local user.
    assert.equal(await cache.read(kept, "bob"), undefined, "bob never reads what alice's process listed");
    assert.equal(await cache.read(kept), undefined, "nor does the local user");
    // A server named for its client (issue 41): kept for that client alone too, so its toolbox gets a tool count.
    for (let tries = 0; tries < 60 && !(await cache.read(notKept, "alice")); tries++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok((await cache.read(notKept, "alice"))?.length, "alice's ${WORKBENCH_CLIENT} server is kept for alice");
    assert.equal(await cache.read(notKept, "bob"), undefined, "and never read for bob");
    assert.equal(await cache.read(notKept), undefined, "nor for the local user");
  } finally {
    await registry.closeAll();
    await pool.closeAll();
  }
});

test("pool: a definition one toolbox shares with all and another keeps per client: the per-client process never fills the shared file", async () => {
  const cache = new ListingCache({ ...platform, env: { ...platform.env, WORKBENCH_CACHE_DIR: `${tempDir()}/cache` } });
  const config = validateConfig({ toolboxes: { a: { mcpServers: { s: server("one", { share: "all" }) } }, b: { mcpServers: { s: server("one") } } } });
  const pool = new ServerPool(config, host, { cache });
  const registry = new ToolboxRegistry(config, pool, { client: { name: "alice" } });
  try {
    const opened = await registry.open("b");
    assert.ok(opened.servers.every((slot) => slot.serverSession), opened.servers.map((slot) => slot.error).join(", "));
    const own = config.toolboxes.b.mcpServers.s;
    for (let tries = 0; tries < 60 && !(await cache.read(own, "alice")); tries++) await new Promise((resolve) => setTimeout(resolve, 50));
    await cache.flush();
    assert.ok((await cache.read(own, "alice"))?.length, "kept for alice");
    assert.equal(await cache.read(config.toolboxes.a.mcpServers.s, "bob"), undefined, "the shared toolbox's file, which bob reads, has nothing of alice's");
  } finally {
    await registry.closeAll();
    await pool.closeAll();
  }
});

test("pool: sessions that differ only in extensions their server did not declare share its process; one it declared is given as a flag (issue 52)", async () => {
  const dir = tempDir();
  writeFileSync(`${dir}/pinned.json`, JSON.stringify({ description: "Greets." }));
  const config = validateConfig({
    toolboxes: { dev: { mcpServers: { plain: server("plain"), apps: fixtureServer("pinned-server.ts", { env: { PINNED_FILE: `${dir}/pinned.json` } }) } } },
  });
  const pool = new ServerPool(config, host);
  const user = (extensions?: Record<string, object>) => ({ upstream: commandUpstream(() => {}, extensions) });
  const { plain, apps } = config.toolboxes.dev.mcpServers;
  try {
    const first = pool.serverFor(plain, user({ "io.example/a": { setting: 1 } }));
    await first.connect();
    assert.deepEqual(first.serverSession?.declared.extensions, { "io.example/a": {} }, "before its declaration was known: every one, as a flag");
    const others: (Record<string, object> | undefined)[] = [{ "io.example/b": {} }, undefined, { "io.example/a": { setting: 2 } }];
    for (const extensions of others) {
      assert.equal(pool.serverFor(plain, user(extensions)), first, JSON.stringify(extensions));
    }
    const none = pool.serverFor(apps, user());
    await none.connect();
    const ui = pool.serverFor(apps, user({ "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] }, "io.example/a": {} }));
    assert.notEqual(ui, none, "the extension it declared: another process");
    await ui.connect();
    assert.deepEqual(ui.serverSession?.declared.extensions, { "io.modelcontextprotocol/ui": {} }, "as a flag, alone");
    assert.deepEqual(ui.tools.map((tool) => tool.name), ["greet", "stable", "panel"]);
    assert.equal(pool.serverFor(apps, user({ "io.modelcontextprotocol/ui": {} })), ui, "other settings of it: the same process");
    assert.equal(pool.running, 3);
  } finally {
    await pool.closeAll();
  }
});

test("pool: a process of a client's own names that client in its log lines; the local user's does not (issue 52)", async () => {
  const lines: string[] = [];
  const logging = { ...host, writeStderr: (text: string) => void lines.push(text) };
  const config = validateConfig({ toolboxes: { a: { mcpServers: { s: server("one", { env: { FIXTURE_LABEL: "for ${WORKBENCH_CLIENT}" } }) } } } });
  const pool = new ServerPool(config, logging);
  const registries = [new ToolboxRegistry(config, pool, { client: { name: "alice" } }), new ToolboxRegistry(config, pool)];
  try {
    for (const [index, registry] of registries.entries()) {
      const [slot] = (await registry.open("a")).servers;
      assert.ok(slot.serverSession, slot.error ?? "");
      await slot.serverSession.callTool("log", { text: `line ${index}` });
    }
    // The stderr relay writes as lines come: wait (bounded) for both.
    for (let tries = 0; tries < 60 && lines.filter((line) => line.includes("line ")).length < 2; tries++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(lines.includes("[a/s for alice] line 0\n"), lines.join(""));
    assert.ok(lines.includes("[a/s] line 1\n"), lines.join(""));
  } finally {
    for (const registry of registries) await registry.closeAll();
    await pool.closeAll();
  }
});
