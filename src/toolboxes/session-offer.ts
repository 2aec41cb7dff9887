/**
 * A session's offer: the one object a session asks for anything its servers offer, and the one
 * place where two things are decided: whether a server's lists are its live ones or the listing
 * cache's, and when the lock is read again (both in offer-rules.ts). It holds the session's toolboxes
 * (their registry: what is open, the servers' sessions), sees the configuration as the session does
 * (its grants and scope applied), and answers through the rule of offer.ts (filters, then pins):
 * use_tool's lookup (find), open_toolbox and run_code (open), search (servers), prompts, resources
 * and skills (listings, withheldTexts).
 */
import type { Tool } from "../protocol/sdk.ts";
import type { WorkbenchConfig } from "../config/index.ts";
import type { ListingCache } from "../cache/listing-cache.ts";
import type { ServerListing } from "../downstream/listing.ts";
import type { SkillEntry } from "../protocol/skills.ts";
import { judged, listedHere } from "./offer-rules.ts";
import type { Withheld } from "./withheld.ts";
import type { ConfiguredServer, OpenToolbox, ServerSlot, ToolboxRegistry } from "./registry.ts";
import type { SharedServer } from "./shared-server.ts";
import { findTool, type Found, type Opens, openToolbox, type ToolFinder, type ToolName } from "./tool-lookup.ts";
import type { Lacking } from "./start-credentials.ts";
import type { Span } from "../telemetry/index.ts";

export { type CallTarget, type Found, type ToolFinder, type ToolName, useToolToolboxNotFound, whereOf } from "./tool-lookup.ts";

/** A configured server's offer, as search reads it: its tools and skills, live or from the cache. */
export interface OfferedServer {
  configured: ConfiguredServer;
  toolbox: string;
  toolboxDescription?: string;
  server: string;
  /** The tools offered; undefined when the server never listed them here nor in the cache. */
  tools?: Tool[];
  /** The skills offered (URIs as the server gave them); undefined when none are known. */
  skills?: SkillEntry[];
}

/** What the listing cache kept of a server: its tools and other lists. */
type CachedLists = { tools: Tool[]; listing?: ServerListing } | undefined;

export class SessionOffer implements ToolFinder {
  readonly #registry: ToolboxRegistry;
  readonly #config: () => WorkbenchConfig;
  readonly #cache?: ListingCache;
  /** The cache's lists, read once per definition (a list found stays; a miss is asked again). */
  readonly #cached = new WeakMap<object, CachedLists>();

  /** `config`: the configuration the session sees now (its grants and scope applied). */
  constructor(registry: ToolboxRegistry, config: () => WorkbenchConfig, cache?: ListingCache) {
    this.#registry = registry;
    this.#config = config;
    this.#cache = cache;
  }

  /** The session's toolboxes as a registry: the live side (servers' sessions, subscriptions). */
  get registry(): ToolboxRegistry {
    return this.#registry;
  }

  /** The configuration as the session sees it now. */
  get config(): WorkbenchConfig {
    return this.#config();
  }

  /** Every server the session's configuration names, in its order. */
  get configured(): ConfiguredServer[] {
    return this.#registry.configured;
  }

  /**
   * Opens a configured toolbox (see ToolboxRegistry.open; the lock is read afresh): what open_toolbox
   * and run_code show. Traced under `parent` (the client's request) when telemetry is on.
   */
  open(name: string, server?: string, parent?: Span): Promise<OpenToolbox> {
    return openToolbox(this.#registry, name, server, parent);
  }

  find(id: ToolName, signal: () => AbortSignal, opens: Opens, parent?: Span): Promise<Found> {
    return findTool(this.#registry, this.#config(), id, signal, opens, parent);
  }

  lacking(id: Pick<ToolName, "toolbox" | "server">): Promise<Lacking | undefined> {
    const configured = this.configured.find((one) => one.toolbox === id.toolbox && one.server === id.server);
    return configured ? this.#slotOf(configured).shared.lacking() : Promise.resolve(undefined);
  }

  /**
   * Every configured server's tools and skills without starting any: live where the server listed
   * here, else the listing cache's (`cached` says whose files), through the same rule.
   */
  async servers(): Promise<OfferedServer[]> {
    const config = this.#config();
    return await Promise.all(this.configured.map(async (configured): Promise<OfferedServer> => {
      const slot = this.#slotOf(configured);
      await judged(slot);
      const about = {
        configured,
        toolbox: configured.toolbox,
        toolboxDescription: config.toolboxes[configured.toolbox]?.description || undefined,
        server: configured.server,
      };
      if (listedHere(slot.shared)) return { ...about, tools: slot.tools, skills: slot.listing?.skills?.entries };
      const listed = await this.#cachedLists(configured);
      if (listed === undefined) return { ...about, tools: undefined };
      const offer = slot.offerOf(listed);
      return { ...about, tools: offer.tools, skills: offer.listing?.skills?.entries };
    }));
  }

  /** Every configured server's prompts, resources, templates and skills whose lists are known, by the same rule. */
  async listings(): Promise<{ configured: ConfiguredServer; listing: ServerListing }[]> {
    const configured = this.configured;
    const slots = configured.map((one) => this.#slotOf(one));
    await Promise.all(slots.map(judged));
    const listings = await Promise.all(configured.map(async (one, index) => {
      const slot = slots[index];
      if (listedHere(slot.shared)) return slot.listing;
      const cached = (await this.#cachedLists(one))?.listing;
      return cached && slot.offerOf({ tools: NO_TOOLS, listing: cached }).listing;
    }));
    return configured.flatMap((one, index) => listings[index] ? [{ configured: one, listing: listings[index]! }] : []);
  }

  /** A server's withheld prompts, resources, templates, skills and instructions: it is connected first (a skill is read from it). */
  async withheldTexts(configured: ConfiguredServer): Promise<Withheld[]> {
    const slot = this.#registry.slot(configured);
    if ((await slot.shared.connected()).ok) await judged(slot);
    return slot.withheldTexts;
  }

  /** A shared server's lists as each of this session's names for it offers them (empty before it first listed). */
  async listingsOf(shared: SharedServer): Promise<(ServerListing | undefined)[]> {
    const slots = this.configured.map((one) => this.#registry.slot(one)).filter((slot) => slot.shared === shared);
    await Promise.all(slots.map(judged));
    return slots.map((slot) => slot.listing);
  }

  /** The open toolbox's slot of a server, else the registry's slot for it. */
  #slotOf(configured: ConfiguredServer): ServerSlot {
    return this.#registry.get(configured.toolbox)?.servers.find((one) => one.name === configured.server) ?? this.#registry.slot(configured);
  }

  async #cachedLists(configured: ConfiguredServer): Promise<CachedLists> {
    const known = this.#cached.get(configured.config);
    if (known || !this.#cache) return known;
    // A server whose processes are each client's own is read from this client's file alone (see ListingCache).
    const entry = await this.#cache.readEntry(configured.config, this.#registry.client);
    const lists = entry && { tools: entry.tools, listing: entry.listing };
    if (lists) this.#cached.set(configured.config, lists);
    return lists;
  }
}

const NO_TOOLS: Tool[] = [];
