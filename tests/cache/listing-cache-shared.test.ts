/**
 * The listing cache over a store shared by replicas (issue 47 §3): what one replica's servers
 * listed, and the era they spoke, is known to another that never started them; a client's own
 * listing only to that client; the search's own files stay on the machine; a store that is not
 * shared takes nothing; what the store gives back is checked as a file is.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { platform } from "#platform";
import { validateConfig } from "../../src/config/index.ts";
import { MemoryStore } from "../../src/store/memory-store.ts";
import { fixtureTools } from "../fixtures/fixture-tools.ts";
import { definitionKey, ListingCache } from "../../src/cache/listing-cache.ts";

const server = validateConfig({ toolboxes: { dev: { mcpServers: { s: { command: "srv", env: { TOKEN: "sk-secret" } } } } } }).toolboxes.dev.mcpServers.s;
const TOOLS = fixtureTools("s");
const LISTING = { prompts: [], resources: [], resourceTemplates: [] };

/** Two replicas' caches, each with a directory of its own, over `store`. */
async function replicas(store: MemoryStore, body: (here: ListingCache, there: ListingCache) => Promise<void>) {
  const dirs = [mkdtempSync(`${tmpdir()}/workbench-shared-`), mkdtempSync(`${tmpdir()}/workbench-shared-`)];
  const caches = dirs.map((dir) => new ListingCache({ ...platform, env: { WORKBENCH_CACHE_DIR: dir }, writeStderr: () => {} }));
  for (const cache of caches) cache.share(store);
  try {
    await body(caches[0]!, caches[1]!);
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

test("shared listing cache: what one replica's server listed, and its era, another replica knows without starting it", async () => {
  const store = new MemoryStore({ shared: true });
  await replicas(store, async (here, there) => {
    assert.equal(await there.read(server), undefined);
    await here.remember(server, TOOLS, LISTING, "{}");
    here.rememberEra(server, "2026-07-28");
    await here.flush();
    assert.deepEqual(await there.read(server), TOOLS);
    assert.deepEqual((await there.readEntry(server))?.listing, LISTING);
    assert.equal(await there.eraOf(server), "2026-07-28");
  });
});

test("shared listing cache: a client's own listing reaches that client on another replica, never another client", async () => {
  await replicas(new MemoryStore({ shared: true }), async (here, there) => {
    await here.remember(server, TOOLS.slice(0, 1), LISTING, "{}", "alice");
    await here.flush();
    assert.deepEqual(await there.read(server, "alice"), TOOLS.slice(0, 1));
    assert.equal(await there.read(server, "bob"), undefined);
    assert.equal(await there.read(server), undefined, "nor the local user's");
  });
});

test("shared listing cache: the search's own files stay on the machine; a store of one process's own takes nothing", async () => {
  const shared = new MemoryStore({ shared: true });
  await replicas(shared, async (here) => {
    await here.writeOwn("search-choices-abc.json", "{}");
    await here.flush();
    assert.equal(shared.size, 0);
  });
  const own = new MemoryStore();
  await replicas(own, async (here, there) => {
    await here.remember(server, TOOLS, LISTING, "{}");
    await here.flush();
    assert.equal(own.size, 0);
    assert.equal(await there.read(server), undefined);
  });
});

test("shared listing cache: what the store gives back is checked as a file is: a poisoned value is a miss, never a crash", async () => {
  const store = new MemoryStore({ shared: true });
  await replicas(store, async (here, there) => {
    await here.remember(server, TOOLS, LISTING, "{}");
    await here.flush();
    for (const key of await keysOf(store)) await store.set(key, '{"format":1,"tools":[{"nameless":true}]}', 60_000);
    assert.equal(await there.read(server), undefined);
    for (const key of await keysOf(store)) await store.set(key, "not json", 60_000);
    assert.equal(await there.read(server), undefined);
    assert.equal(await there.eraOf(server), undefined);
  });
});

/** The listing keys a store holds (wb:{listings}:file:<name>), found by the names the files have on disk. */
async function keysOf(store: MemoryStore): Promise<string[]> {
  const keys: string[] = [];
  for (const name of [`${definitionKey(server)}.json`]) {
    const key = `wb:{listings}:file:${name}`;
    if (await store.get(key) !== undefined) keys.push(key);
  }
  return keys;
}
