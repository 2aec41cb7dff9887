/**
 * The listing cache keeps what a server listed, whole; what a toolbox is offered of it (its
 * toolFilters, its pins) is decided where it is read, by the offer's rule: the instructions'
 * figures and run_code's declarations (cached-offer.ts), search and the catalog (session-offer.ts).
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { platform } from "#platform";
import { validateConfig } from "../../src/config/index.ts";
import { ListingCache } from "../../src/cache/listing-cache.ts";
import { ServerPool } from "../../src/toolboxes/pool.ts";
import { ToolboxRegistry } from "../../src/toolboxes/registry.ts";
import { cachedToolboxes } from "../../src/toolboxes/cached-offer.ts";
import { SessionOffer } from "../../src/toolboxes/session-offer.ts";
import { fx } from "../helpers/toolbox.ts";
import { removeTempDirs, tempDir } from "../helpers/workbench.ts";

after(removeTempDirs);

const host = { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {} };

test("cached offer: the pool keeps a filtered server's whole listing; figures, declarations and search offer the filtered tools", async () => {
  const cache = new ListingCache({ ...platform, env: { ...platform.env, WORKBENCH_CACHE_DIR: `${tempDir()}/cache` } });
  const config = validateConfig({ toolboxes: { dev: { mcpServers: { a: fx("a", { toolFilters: ["echo"] }) } } } });
  const definition = config.toolboxes.dev.mcpServers.a;
  const pool = new ServerPool(config, host, { cache });
  const registry = new ToolboxRegistry(config, pool);
  try {
    await registry.open("dev");
    for (let tries = 0; tries < 60 && !(await cache.read(definition)); tries++) await new Promise((resolve) => setTimeout(resolve, 50));
    await cache.flush();
  } finally {
    await registry.closeAll();
    await pool.closeAll();
  }
  const kept = (await cache.read(definition))!.map((tool) => tool.name);
  assert.ok(kept.length > 1 && kept.includes("echo"), `kept whole: ${kept.join(", ")}`);
  const [toolbox] = await cachedToolboxes(config, cache);
  const [server] = toolbox.servers!;
  assert.deepEqual(server.offered(server.entry.tools).map((tool) => tool.name), ["echo"]);
  // A new session, no server started: search reads the cache through the same rule.
  const fresh = new ToolboxRegistry(config, new ServerPool(config, host, { cache }));
  try {
    const [offered] = await new SessionOffer(fresh, () => config, cache).servers();
    assert.deepEqual(offered.tools?.map((tool) => tool.name), ["echo"]);
    assert.equal(fresh.configured.every((one) => !fresh.slot(one).shared.live), true, "nothing started");
  } finally {
    await fresh.closeAll();
  }
});
