/**
 * What a session may see of every configured server's tools and skills (Skills extension), without
 * starting any: the offer (toolboxes/offer.ts: filters, then pins) of the live lists where the
 * server is running (or ran), else of the listing cache's, for the toolboxes the session is granted
 * and scoped to (its registry's configuration). The one place search reads tools and skills from: a
 * withheld, ungranted or out-of-scope tool or skill is never found.
 */
import type { Tool } from "../protocol/sdk.ts";
import type { ServerConfig, WorkbenchConfig } from "../config/index.ts";
import type { ConfiguredServer, ToolboxRegistry } from "../toolboxes/registry.ts";
import type { ServerListing } from "../downstream/listing.ts";
import type { SkillEntry } from "../protocol/skills.ts";
import { CALL_RECHECK_MS } from "../toolboxes/pin-store.ts";

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

/** The listing cache's last lists of a server (before the offer), or undefined. */
export type CachedLists = (server: ServerConfig) => Promise<{ tools: Tool[]; listing?: ServerListing } | undefined>;

export async function offeredServers(registry: ToolboxRegistry, config: WorkbenchConfig, cached: CachedLists): Promise<OfferedServer[]> {
  return await Promise.all(registry.configured.map(async (configured): Promise<OfferedServer> => {
    const slot = registry.get(configured.toolbox)?.servers.find((one) => one.name === configured.server) ??
      registry.slot(configured);
    // The lock as it is now: a tool approved a moment ago is found, one changed since pinned is not.
    await slot.trust(CALL_RECHECK_MS);
    const about = {
      configured,
      toolbox: configured.toolbox,
      toolboxDescription: config.toolboxes[configured.toolbox]?.description || undefined,
      server: configured.server,
    };
    if (slot.shared.live || slot.shared.tools.length > 0) return { ...about, tools: slot.tools, skills: slot.listing?.skills?.entries };
    const listed = await cached(configured.config);
    if (listed === undefined) return { ...about, tools: undefined };
    const offer = slot.offerOf(listed);
    return { ...about, tools: offer.tools, skills: offer.listing?.skills?.entries };
  }));
}
