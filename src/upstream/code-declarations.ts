/**
 * The declarations run_code's description carries: each code-mode toolbox's tools as TypeScript,
 * from the listing cache (the tools are known before any server starts only from there), through
 * the offer (filters and pins: a withheld tool is never declared). A toolbox with a server not in
 * the cache is left out: open_toolbox gives its declarations then.
 */
import type { WorkbenchConfig } from "../config/index.ts";
import type { ListingCache } from "../cache/listing-cache.ts";
import { toolboxDeclarations } from "../code/declarations.ts";
import type { PinStore } from "../toolboxes/pin-store.ts";
import { offerOf, pinsAt } from "../toolboxes/offer.ts";

/** By toolbox name; empty when code mode is off everywhere (nothing is read then). */
export async function cachedDeclarations(config: WorkbenchConfig, cache: ListingCache, pins?: PinStore, client?: string): Promise<Record<string, string>> {
  const declared: Record<string, string> = {};
  for (const [name, toolbox] of Object.entries(config.toolboxes)) {
    if (!toolbox.codeMode) continue;
    const servers = Object.entries(toolbox.mcpServers);
    // A server whose processes are each client's own is read from this client's file alone.
    const lists = await Promise.all(servers.map(([, server]) => cache.read(server, client)));
    if (lists.some((tools) => tools === undefined)) continue;
    await pins?.refresh();
    declared[name] = toolboxDeclarations(servers.map(([server, definition], index) => ({
      name: server,
      tools: offerOf({ tools: lists[index]! }, definition.toolFilters, pinsAt(pins, config, name, server)).tools,
    })));
  }
  return declared;
}
