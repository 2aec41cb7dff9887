/**
 * search_tools' own path timed, not only the ranker: 1,000 tools of MSC-Bench (the seeded sample of
 * run.ts) in the listing cache, one toolbox per server, a session's registry and SessionSearch, and
 * each level-2 query searched through it (what the session may see, read from the cache; the index
 * kept). No server starts: every definition is `/bin/false`, only ever read from the cache.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { platform } from "#platform";
import { validateConfig } from "../../src/config/index.ts";
import { ListingCache } from "../../src/cache/listing-cache.ts";
import { ServerPool } from "../../src/toolboxes/pool.ts";
import { ToolboxRegistry } from "../../src/toolboxes/registry.ts";
import { SessionOffer } from "../../src/toolboxes/session-offer.ts";
import { SessionSearch } from "../../src/tools/session-search.ts";
import type { Tool } from "../../src/protocol/sdk.ts";
import { sample } from "./run.ts";
import type { Sets } from "./sets.ts";

export interface CatalogLatency {
  servers: number;
  firstMs: number;
  p50: number;
  p95: number;
}

export async function measureCatalog(sets: Sets): Promise<CatalogLatency> {
  const byServer = new Map<string, Tool[]>();
  for (const t of sample(sets, 1000)) {
    byServer.set(t.server, [...(byServer.get(t.server) ?? []), { name: t.tool, description: t.description, inputSchema: t.inputSchema as Tool["inputSchema"] }]);
  }
  const names = [...byServer.keys()];
  const toolboxes = Object.fromEntries(names.map((server, i) => [`tb${i}`, { description: server, mcpServers: { s: { command: "/bin/false", args: [server] } } }]));
  const config = validateConfig({ toolSearch: true, toolboxes });
  const dir = mkdtempSync(`${tmpdir()}/search-eval-`);
  const cache = new ListingCache({ ...platform, env: { ...platform.env, WORKBENCH_CACHE_DIR: dir } });
  const host = { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {} };
  const pool = new ServerPool(config, host, { cache });
  const registry = new ToolboxRegistry(config, pool);
  try {
    for (const [i, server] of names.entries()) await cache.remember(config.toolboxes[`tb${i}`].mcpServers.s, byServer.get(server)!);
    await cache.flush();
    const catalog = new SessionSearch();
    const offer = new SessionOffer(registry, () => config, cache);
    const queries = sets.set("msc-l2").queries.map((q) => q.query);
    let started = performance.now();
    await catalog.search(offer, queries[0], 8);
    const firstMs = performance.now() - started;
    const times: number[] = [];
    for (const query of queries) {
      started = performance.now();
      await catalog.search(offer, query, 8);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    return { servers: names.length, firstMs, p50: times[Math.floor(times.length / 2)], p95: times[Math.floor(times.length * 0.95)] };
  } finally {
    await registry.closeAll();
    await pool.closeAll();
    rmSync(dir, { recursive: true, force: true });
  }
}
