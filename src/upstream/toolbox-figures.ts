/**
 * What the instructions can say about a toolbox before it is opened: its tool count and the
 * tokens its full open_toolbox entries would cost, from the listing cache. Only toolboxes whose
 * every server is in the cache get figures: a partial count would mislead.
 *
 * Some servers list tools by what the client declares (server-everything lists its elicitation
 * and sampling tools only to a client that has them), and each server is given what the client in
 * front declared (mirroredCapabilities). The count is made when that client's initialize (or
 * server/discover) arrives, from the lists the cache keeps per set of capabilities given: exact
 * when every server of the toolbox was listed for what this client makes us declare, else
 * "about", from each server's last list, whoever it was made for. Exact without starting anything
 * (the files are read once, at start) and without guessing which capabilities a server looks at.
 */
import type { ClientCapabilities } from "../protocol/sdk.ts";
import type { ServerConfig, WorkbenchConfig } from "../config/index.ts";
import { capabilityKey, type ListingCache } from "../cache/listing-cache.ts";
import { sharingKey } from "../config/definition.ts";
import { mirroredCapabilities } from "../downstream/forwarded-capabilities.ts";
import { toolInfo } from "../tools/open-toolbox.ts";
import { estimateTokens } from "../tools/token-estimate.ts";
import type { PinStore } from "../toolboxes/pin-store.ts";
import { cachedToolboxes } from "../toolboxes/cached-offer.ts";

// Where the estimate lives now (the result cap counts with it too); read from here by check and tests.
export { estimateTokens };

export interface ToolboxFigures {
  tools: number;
  /** Estimated tokens of the toolbox's full open_toolbox entries (see estimateTokens). */
  tokens: number;
  /** False when some server's list was made for another client's capabilities: the figures are "about". */
  exact: boolean;
}

/** The figures for a client that declared these capabilities (undefined: none known yet). */
export type FiguresFor = (declared: ClientCapabilities | undefined) => Record<string, ToolboxFigures>;

/** Each client's figures and declarations, read from its own cache files when its session opens. */
export interface ClientListings {
  figures(client: string): Promise<FiguresFor>;
  declarations(client: string): Promise<Record<string, string>>;
}

/**
 * Reads only files, once: nothing is spawned. Each list passes the offer (cached-offer.ts): a
 * withheld tool is not counted. `client`: whose figures; a server whose processes are each
 * client's own is read from that client's cache file alone (see ListingCache).
 */
export async function toolboxFigures(config: WorkbenchConfig, cache: ListingCache, pins?: PinStore, client?: string): Promise<FiguresFor> {
  const toolboxes = await cachedToolboxes(config, cache, pins, client);
  const roots = sharedRoots(config);
  return (declared) => {
    const figures: Record<string, ToolboxFigures> = {};
    for (const { name, servers } of toolboxes) {
      if (!servers || servers.length === 0) continue;
      let exact = true;
      const tools = servers.flatMap(({ server, definition, entry, offered }) => {
        // What the workbench will declare to this server for this client (see downstream/relay.ts).
        const key = capabilityKey(mirroredCapabilities(declared, roots.get(sharingKey(definition)) ?? definition.roots));
        if (!Object.hasOwn(entry.lists, key)) exact = false;
        return offered(Object.hasOwn(entry.lists, key) ? entry.lists[key] : entry.tools).map((tool) => toolInfo(tool, name, server, false));
      });
      figures[name] = { tools: tools.length, tokens: estimateTokens(tools), exact };
    }
    return figures;
  };
}

/** Roots as a shared server gets them: every toolbox that lists its definition must allow them (see definition.ts). */
function sharedRoots(config: WorkbenchConfig): Map<string, boolean> {
  const roots = new Map<string, boolean>();
  for (const toolbox of Object.values(config.toolboxes)) {
    for (const server of Object.values(toolbox.mcpServers) as ServerConfig[]) {
      const key = sharingKey(server);
      roots.set(key, (roots.get(key) ?? true) && server.roots);
    }
  }
  return roots;
}

/** 850 or 6.1k. */
export function formatTokens(tokens: number): string {
  return tokens < 1_000 ? String(tokens) : `${(tokens / 1_000).toFixed(1)}k`;
}
