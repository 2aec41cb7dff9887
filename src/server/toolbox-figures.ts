/**
 * What the instructions can say about a toolbox before it is opened: its tool count and the
 * tokens its full open_toolbox entries would cost, from the catalog cache. Only toolboxes whose
 * every server is in the cache get figures: a partial count would mislead.
 */
import type { WorkbenchConfig } from "../config/index.ts";
import type { CatalogCache } from "../toolbox/catalog-cache.ts";
import { toolInfo } from "../tools/open-toolbox.ts";

export interface ToolboxFigures {
  tools: number;
  /** Estimated tokens of the toolbox's full open_toolbox entries (see estimateTokens). */
  tokens: number;
}

/** Reads only files: nothing is spawned. */
export async function toolboxFigures(config: WorkbenchConfig, cache: CatalogCache): Promise<Record<string, ToolboxFigures>> {
  const figures: Record<string, ToolboxFigures> = {};
  await Promise.all(Object.entries(config.toolboxes).map(async ([name, toolbox]) => {
    const servers = Object.entries(toolbox.mcpServers);
    if (servers.length === 0) return;
    const lists = await Promise.all(servers.map(([, server]) => cache.read(server)));
    if (lists.some((tools) => tools === undefined)) return;
    const entries = servers.flatMap(([server], index) => lists[index]!.map((tool) => toolInfo(tool, name, server, false)));
    figures[name] = { tools: entries.length, tokens: estimateTokens(entries) };
  }));
  return figures;
}

/**
 * Tokens, estimated as the UTF-8 bytes of the value's compact JSON divided by 4, rounded up: about
 * what common tokenizers give for JSON with English text (exact counts depend on the model).
 */
export function estimateTokens(value: unknown): number {
  return Math.ceil(new TextEncoder().encode(JSON.stringify(value)).length / 4);
}

/** 850 or 6.1k. */
export function formatTokens(tokens: number): string {
  return tokens < 1_000 ? String(tokens) : `${(tokens / 1_000).toFixed(1)}k`;
}
