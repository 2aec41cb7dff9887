/**
 * What a client is told before any server starts (the instructions' tool counts, run_code's
 * declarations) comes from the listing cache, through the same rule as everything a session sees
 * (offer.ts: filters, then pins): each toolbox's servers as the cache kept them, with the offer of
 * any of their lists. Reads only files; starts nothing.
 */
import type { Tool } from "../protocol/sdk.ts";
import type { ServerConfig, WorkbenchConfig } from "../config/index.ts";
import type { CacheEntry, ListingCache } from "../cache/listing-cache.ts";
import type { PinStore } from "./pin-store.ts";
import { offerOf, pinsAt } from "./offer.ts";

/** One server of a toolbox as the cache kept it. */
export interface CachedServer {
  server: string;
  definition: ServerConfig;
  entry: CacheEntry;
  /** What of these tools (one of the entry's lists) the offer shows. */
  offered(tools: Tool[]): Tool[];
}

/** A toolbox whose every server is in the cache (a partial toolbox would mislead), else none. */
export interface CachedToolbox {
  name: string;
  servers?: CachedServer[];
}

/** `client`: whose files (a server whose processes are each client's own is read from that client's file alone). */
export async function cachedToolboxes(
  config: WorkbenchConfig,
  cache: ListingCache,
  pins?: PinStore,
  client?: string,
): Promise<CachedToolbox[]> {
  await pins?.refresh();
  return await Promise.all(
    Object.entries(config.toolboxes).map(async ([name, toolbox]): Promise<CachedToolbox> => {
      const servers = Object.entries(toolbox.mcpServers);
      const entries = await Promise.all(servers.map(([, definition]) => cache.readEntry(definition, client)));
      if (entries.some((entry) => entry === undefined)) return { name };
      return {
        name,
        servers: servers.map(([server, definition], index) => ({
          server,
          definition,
          entry: entries[index]!,
          offered: (tools: Tool[]) => offerOf({ tools }, definition.toolFilters, pinsAt(pins, config, name, server)).tools,
        })),
      };
    }),
  );
}
