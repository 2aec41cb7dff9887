/**
 * The declarations run_code's description carries: each code-mode toolbox's tools as TypeScript,
 * from the listing cache (the tools are known before any server starts only from there), through
 * the offer (cached-offer.ts: a withheld tool is never declared). A toolbox with a server not in
 * the cache is left out: open_toolbox gives its declarations then.
 */
import type { WorkbenchConfig } from "../config/index.ts";
import type { ListingCache } from "../cache/listing-cache.ts";
import { toolboxDeclarations } from "../code/declarations.ts";
import type { PinStore } from "../toolboxes/pin-store.ts";
import { cachedToolboxes } from "../toolboxes/cached-offer.ts";

/** By toolbox name; empty when code mode is off everywhere (nothing is read then). */
export async function cachedDeclarations(
  config: WorkbenchConfig,
  cache: ListingCache,
  pins?: PinStore,
  client?: string,
): Promise<Record<string, string>> {
  const declared: Record<string, string> = {};
  if (!Object.values(config.toolboxes).some((toolbox) => toolbox.codeMode)) return declared;
  for (const { name, servers } of await cachedToolboxes(config, cache, pins, client)) {
    if (!config.toolboxes[name].codeMode || !servers) continue;
    declared[name] = toolboxDeclarations(servers.map(({ server, entry, offered }) => ({ name: server, tools: offered(entry.tools) })));
  }
  return declared;
}
