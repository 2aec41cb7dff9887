/**
 * What a session may see of every configured server's tools, without starting any: the offer
 * (toolboxes/offer.ts: filters, then pins) of the live list where the server is running (or ran),
 * else of the listing cache's, for the toolboxes the session is granted and scoped to (its
 * registry's configuration). The one place search reads tools from: a withheld, ungranted or
 * out-of-scope tool is never found.
 */
import type { Tool } from "../protocol/sdk.ts";
import type { ServerConfig, WorkbenchConfig } from "../config/index.ts";
import type { ConfiguredServer, ToolboxRegistry } from "../toolboxes/registry.ts";
import { CALL_RECHECK_MS } from "../toolboxes/pin-store.ts";

export interface OfferedServer {
  configured: ConfiguredServer;
  toolbox: string;
  toolboxDescription?: string;
  server: string;
  /** The tools offered; undefined when the server never listed them here nor in the cache. */
  tools?: Tool[];
}

/** The listing cache's last list of a server (after its filters), or undefined. */
export type CachedTools = (server: ServerConfig) => Promise<Tool[] | undefined>;

export async function offeredServers(registry: ToolboxRegistry, config: WorkbenchConfig, cached: CachedTools): Promise<OfferedServer[]> {
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
    if (slot.shared.live || slot.shared.tools.length > 0) return { ...about, tools: slot.tools };
    const listed = await cached(configured.config);
    return { ...about, tools: listed === undefined ? undefined : slot.offerOf({ tools: listed }).tools };
  }));
}
