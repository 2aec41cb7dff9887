/**
 * A session's tool search: the index over what the session may see (its offer's servers), built at
 * the first search and again only when a list changed; servers whose tools are not known yet are
 * named in the answer and listed in the background, a few at a time, each once per client, whatever
 * its sessions (their listing then reaches the cache, as any listing does). The toolboxes a search answered with are
 * remembered: use_tool opens them itself, so a found tool is called without open_toolbox first.
 * A skill (Skills extension) of the offer is indexed as a tool would be, by its name and
 * description, and found as a skill: its hit names the URI of its SKILL.md as a client sees it.
 * With learning on (search-learning.ts), the tools chosen after similar requests are lifted: only
 * tools of this index, so only what the session may see now.
 */
import type { Tool } from "../protocol/sdk.ts";
import type { ServerConfig } from "../config/index.ts";
import type { ConfiguredServer, ToolboxRegistry } from "../toolboxes/registry.ts";
import type { OfferedServer, SessionOffer } from "../toolboxes/session-offer.ts";
import type { SearchEntry, ToolIndex } from "../search/index.ts";
import { publicUri } from "../protocol/skills.ts";
import { choiceKey, learnsFromUse, rememberSearchChoice, type SearchLearning } from "./search-learning.ts";
import { sharingKey } from "../config/definition.ts";
import { LOCAL_CLIENT_NAME } from "../config/client-variable.ts";

/** A tool, or a skill (then `skill` is the URI of its SKILL.md as a client sees it, skill://T/S/…). */
export type SearchedTool = SearchEntry & ({ tool: Tool; skill?: undefined } | { skill: string; tool?: undefined });

/** A toolbox the session may see, and what it is for: the answer when no tool fits a request. */
export interface ToolboxAbout {
  toolbox: string;
  /** The description the configuration gives it; empty when it has none. */
  description: string;
  servers: string[];
  /** A few of its tools' names, for a toolbox without a description. */
  tools: string[];
}

export interface SessionSearchAnswer {
  hits: SearchedTool[];
  /** When nothing fits the request: the toolboxes searched, and what they are for. */
  toolboxes?: ToolboxAbout[];
  /** "toolbox/server" of servers whose tools are not known yet (being listed in the background). */
  notListed: string[];
}

/** Servers listed in the background at once, and at most per session. */
export const LEARN_AT_ONCE = 2;
export const LEARN_PER_SESSION = 32;

export class SessionSearch {
  #index?: ToolIndex<SearchedTool>;
  #basis: unknown[] = [];
  /** Toolboxes a search answered with: use_tool opens them without open_toolbox. */
  readonly found = new Set<string>();
  readonly #learnQueue: ConfiguredServer[] = [];
  readonly #learnSeen = new Set<ServerConfig>();
  #learning = 0;
  #offer?: SessionOffer;
  /** Background listings in flight, for tests and for a session that ends. */
  readonly pending = new Set<Promise<void>>();

  readonly #fromUse?: SearchLearning;
  /** The index's tools by choiceKey, for what was learned. */
  #byKey = new Map<string, SearchedTool>();
  /** The last search's request, while learning is on and no call has taken it. */
  #lastSearch?: string;

  constructor(learning?: SearchLearning) {
    this.#fromUse = learning;
  }

  /** Where judgements go: the configuration file's learning, when it was on at the last search. */
  get learning(): SearchLearning | undefined {
    return this.#learningOn ? this.#fromUse : undefined;
  }
  #learningOn = false;

  /** A call succeeded: if it came right after a search, it is that search's judgement (see pipeline/learn.ts). */
  chose(id: { toolbox: string; server: string; name: string }): void {
    rememberSearchChoice(this.takeLastSearch(), id, this.learning);
  }

  /** The last search's request, once: the call after a search is its judgement, later ones are not. */
  takeLastSearch(): string | undefined {
    const last = this.#lastSearch;
    this.#lastSearch = undefined;
    return last;
  }

  /** Tools for a query, best first (toolbox narrows), from what the session's offer holds; never starts a server to answer. */
  async search(offer: SessionOffer, query: string, limit: number, toolbox?: string): Promise<SessionSearchAnswer> {
    this.#offer = offer;
    const config = offer.config;
    const servers = await offer.servers();
    const basis: unknown[] = [];
    // Tool by tool: an offer made again from the same list holds the same tool objects.
    for (const server of servers) {
      basis.push(server.toolbox, server.server, server.toolboxDescription, ...(server.tools ?? [undefined]), ...(server.skills ?? []));
    }
    if (!this.#index || !sameBasis(basis, this.#basis)) {
      const entries: SearchedTool[] = [];
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
      this.#byKey = new Map(entries.filter((entry) => entry.tool).map((entry) => [choiceKey(entry), entry]));
      this.#basis = basis;
    }
    const unknown = servers.filter((server) => server.tools === undefined && (toolbox === undefined || server.toolbox === toolbox));
    for (const server of unknown) this.#learn(server.configured);
    const learning = this.#fromUse !== undefined && learnsFromUse(config) ? this.#fromUse : undefined;
    this.#learningOn = learning !== undefined;
    this.#lastSearch = learning === undefined ? undefined : query;
    const lift = learning && await this.#lift(learning, query);
    const hits = this.#index.search(query, { limit, toolbox, lift }).map((hit) => hit.entry);
    for (const hit of hits) if (hit.tool) this.found.add(hit.toolbox);
    const notListed = unknown.map((server) => `${server.toolbox}/${server.server}`);
    if (hits.length > 0) return { hits, notListed };
    return { hits, notListed, toolboxes: toolboxesAbout(servers.filter((server) => toolbox === undefined || server.toolbox === toolbox)) };
  }

  /** What was learned for requests like this one, for the index's tools only. */
  async #lift(learning: SearchLearning, query: string): Promise<Map<SearchedTool, number>> {
    const lift = new Map<SearchedTool, number>();
    for (const [key, value] of (await learning.memory()).lift(query)) {
      const entry = this.#byKey.get(key);
      if (entry) lift.set(entry, value);
    }
    return lift;
  }

  #learn(configured: ConfiguredServer): void {
    if (this.#learnSeen.has(configured.config) || this.#learnSeen.size >= LEARN_PER_SESSION) return;
    this.#learnSeen.add(configured.config);
    const registry = this.#offer?.registry;
    if (!registry || !claimListing(registry, configured)) return;
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
      const registry = this.#offer?.registry;
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

/** Tool names shown for a toolbox without a description. */
const TOOLS_ABOUT = 6;

function toolboxesAbout(servers: readonly OfferedServer[]): ToolboxAbout[] {
  const out = new Map<string, ToolboxAbout>();
  for (const server of servers) {
    let about = out.get(server.toolbox);
    if (!about) {
      about = { toolbox: server.toolbox, description: server.toolboxDescription ?? "", servers: [], tools: [] };
      out.set(server.toolbox, about);
    }
    about.servers.push(server.server);
    for (const tool of server.tools ?? []) if (about.tools.length < TOOLS_ABOUT) about.tools.push(tool.name);
  }
  return [...out.values()];
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
