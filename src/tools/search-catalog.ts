/**
 * A session's tool search: the index over what the session may see (offered-tools.ts), built at
 * the first search and again only when a list changed; servers whose tools are not known yet are
 * named in the answer and listed in the background, a few at a time, each once per client, whatever
 * its sessions (their listing then reaches the cache, as any listing does). The toolboxes a search answered with are
 * remembered: use_tool opens them itself, so a found tool is called without open_toolbox first.
 * A skill (Skills extension) of the offer is indexed as a tool would be, by its name and
 * description, and found as a skill: its hit names the URI of its SKILL.md as a client sees it.
 */
import type { Tool } from "../protocol/sdk.ts";
import type { ServerConfig } from "../config/index.ts";
import type { ListingCache } from "../cache/listing-cache.ts";
import type { ConfiguredServer, ToolboxRegistry } from "../toolboxes/registry.ts";
import type { WorkbenchConfig } from "../config/index.ts";
import type { SearchEntry, ToolIndex } from "../search/index.ts";
import { type CachedLists, offeredServers } from "./offered-tools.ts";
import { publicUri } from "../protocol/skills.ts";
import { sharingKey } from "../config/definition.ts";
import { LOCAL_CLIENT_NAME } from "../config/client-variable.ts";

/** A tool, or a skill (then `skill` is the URI of its SKILL.md as a client sees it, skill://T/S/…). */
export type CatalogEntry = SearchEntry & ({ tool: Tool; skill?: undefined } | { skill: string; tool?: undefined });

export interface CatalogAnswer {
  hits: CatalogEntry[];
  /** "toolbox/server" of servers whose tools are not known yet (being listed in the background). */
  notListed: string[];
}

/** Servers listed in the background at once, and at most per session. */
export const LEARN_AT_ONCE = 2;
export const LEARN_PER_SESSION = 32;

export class SearchCatalog {
  readonly #cache?: ListingCache;
  /** The listing cache's lists, read once per definition (a list found stays; a miss is asked again). */
  readonly #cached = new WeakMap<ServerConfig, Awaited<ReturnType<CachedLists>>>();
  #index?: ToolIndex<CatalogEntry>;
  #basis: unknown[] = [];
  /** Toolboxes a search answered with: use_tool opens them without open_toolbox. */
  readonly found = new Set<string>();
  readonly #learnQueue: ConfiguredServer[] = [];
  readonly #learnSeen = new Set<ServerConfig>();
  #learning = 0;
  #registry?: ToolboxRegistry;
  /** Background listings in flight, for tests and for a session that ends. */
  readonly pending = new Set<Promise<void>>();

  constructor(cache?: ListingCache) {
    this.#cache = cache;
  }

  /** Tools for a query, best first (toolbox narrows); never starts a server to answer. */
  /** `client`: whose listing cache files are read (a client's own processes list for it alone; none: the local user). */
  async search(registry: ToolboxRegistry, config: WorkbenchConfig, query: string, limit: number, toolbox?: string, client?: string): Promise<CatalogAnswer> {
    this.#registry = registry;
    const servers = await offeredServers(registry, config, (server) => this.#read(server, client));
    const basis: unknown[] = [];
    // Tool by tool: an offer made again from the same list holds the same tool objects.
    for (const server of servers) {
      basis.push(server.toolbox, server.server, server.toolboxDescription, ...(server.tools ?? [undefined]), ...(server.skills ?? []));
    }
    if (!this.#index || !sameBasis(basis, this.#basis)) {
      const entries: CatalogEntry[] = [];
      for (const server of servers) {
        for (const tool of server.tools ?? []) {
          entries.push({
            toolbox: server.toolbox,
            toolboxDescription: server.toolboxDescription,
            server: server.server,
            name: tool.name,
            description: tool.description,
            inputSchema: tool.inputSchema,
            tool,
          });
        }
        for (const skill of server.skills ?? []) {
          entries.push({
            toolbox: server.toolbox,
            toolboxDescription: server.toolboxDescription,
            server: server.server,
            name: skill.frontmatter.name,
            description: skill.frontmatter.description,
            skill: publicUri(server.configured, skill.uri),
          });
        }
      }
      // Loaded on the first search, not at start-up (issue 42: 0.8 MiB and about 2 ms before initialize).
      const { ToolIndex } = await import("../search/index.ts");
      this.#index = new ToolIndex(entries);
      this.#basis = basis;
    }
    const unknown = servers.filter((server) => server.tools === undefined && (toolbox === undefined || server.toolbox === toolbox));
    for (const server of unknown) this.#learn(server.configured);
    const hits = this.#index.search(query, { limit, toolbox }).map((hit) => hit.entry);
    for (const hit of hits) if (hit.tool) this.found.add(hit.toolbox);
    return { hits, notListed: unknown.map((server) => `${server.toolbox}/${server.server}`) };
  }

  async #read(server: ServerConfig, client?: string): ReturnType<CachedLists> {
    const known = this.#cached.get(server);
    if (known || !this.#cache) return known;
    const entry = await this.#cache.readEntry(server, client);
    const lists = entry && { tools: entry.tools, listing: entry.listing };
    if (lists) this.#cached.set(server, lists);
    return lists;
  }

  #learn(configured: ConfiguredServer): void {
    if (this.#learnSeen.has(configured.config) || this.#learnSeen.size >= LEARN_PER_SESSION) return;
    this.#learnSeen.add(configured.config);
    if (!this.#registry || !claimListing(this.#registry, configured)) return;
    this.#learnQueue.push(configured);
    this.#next();
  }

  /** The session ended: nothing more is listed for it. */
  close(): void {
    this.#closed = true;
    this.#learnQueue.length = 0;
  }
  #closed = false;

  #next(): void {
    while (!this.#closed && this.#learning < LEARN_AT_ONCE && this.#learnQueue.length > 0) {
      const configured = this.#learnQueue.shift()!;
      const registry = this.#registry;
      if (!registry) return;
      this.#learning++;
      const done: Promise<void> = (async () => {
        try {
          // Started as any server is (the pool's), listed, and so remembered by the listing cache.
          await registry.slot(configured).shared.connect();
        } catch {
          // A server that cannot start stays unlisted: the next search names it again, and may list it.
          releaseListing(registry, configured);
        }
      })().finally(() => {
        this.#learning--;
        this.pending.delete(done);
        this.#next();
      });
      this.pending.add(done);
    }
  }
}

/**
 * The servers listed in the background, by pool, as `[client, definition]`: once per client and
 * definition, not once per session (issue 52: a 2026-07-28 client's hubs, one per set of capabilities
 * it declares, each listed every server again).
 */
const listedInBackground = new WeakMap<object, Set<string>>();

/** True the first time a client's session asks for this server's background listing. */
function claimListing(registry: ToolboxRegistry, configured: ConfiguredServer): boolean {
  let listed = listedInBackground.get(registry.pool);
  if (!listed) listedInBackground.set(registry.pool, listed = new Set());
  const key = listingKey(registry, configured);
  if (listed.has(key)) return false;
  listed.add(key);
  return true;
}

function releaseListing(registry: ToolboxRegistry, configured: ConfiguredServer): void {
  listedInBackground.get(registry.pool)?.delete(listingKey(registry, configured));
}

const listingKey = (registry: ToolboxRegistry, configured: ConfiguredServer) =>
  JSON.stringify([registry.client ?? LOCAL_CLIENT_NAME, sharingKey(configured.config)]);

function sameBasis(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}
