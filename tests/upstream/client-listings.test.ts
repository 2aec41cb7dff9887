/**
 * Each client is told of its own listings only (issue 37 §6): the instructions' figures and
 * run_code's declarations of a client come from what its own processes listed (a per-client
 * server's cache file is that client's), from the local user's for the local user, and a server
 * shared by all (`"share": "all"`) from the one file everybody's process writes.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { platform } from "#platform";
import { capabilityKey, ListingCache } from "../../src/cache/listing-cache.ts";
import { validateConfig } from "../../src/config/index.ts";
import { LiveConfig } from "../../src/config/live.ts";
import { clientListings } from "../../src/upstream/client-listings.ts";
import { fixtureTools } from "../fixtures/fixture-tools.ts";

test("client listings: a per-client server's cached tools reach that client's figures and declarations alone", async () => {
  const dir = mkdtempSync(`${tmpdir()}/workbench-listings-`);
  try {
    const cacheHost = { ...platform, env: { WORKBENCH_CACHE_DIR: dir }, writeStderr: () => {} };
    const config = validateConfig({
      toolboxes: {
        own: { codeMode: true, mcpServers: { notes: { command: "notes" } } },
        all: { codeMode: true, mcpServers: { tools: { command: "tools", share: "all" } } },
      },
    });
    const cache = new ListingCache(cacheHost);
    const none = capabilityKey({});
    const [alices, locals] = [fixtureTools("A").slice(0, 3), fixtureTools("L").slice(0, 1)];
    await cache.remember(config.toolboxes.own.mcpServers.notes, alices, undefined, none, "alice");
    await cache.remember(config.toolboxes.own.mcpServers.notes, locals, undefined, none, "local");
    await cache.remember(config.toolboxes.all.mcpServers.tools, fixtureTools("S").slice(0, 2), undefined, none, "alice");
    const listings = await clientListings(new LiveConfig(config), new ListingCache(cacheHost));
    const count = async (client: string) => {
      const figures = (await listings.figures(client))(undefined);
      return Object.fromEntries(Object.entries(figures).map(([name, one]) => [name, one.tools]));
    };
    assert.deepEqual(await count("alice"), { own: 3, all: 2 });
    assert.deepEqual(await count("local"), { own: 1, all: 2 });
    assert.deepEqual(await count("bob"), { all: 2 }, "bob's own process never listed: no figures, and none of alice's");
    assert.deepEqual(Object.keys(await listings.declarations("bob")), ["all"]);
    assert.match((await listings.declarations("alice")).own, new RegExp(alices[2].name));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
