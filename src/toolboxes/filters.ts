/** A toolbox's view of a server's tools: its toolFilters. */
import type { Tool } from "../protocol/sdk.ts";

/** `toolFilters`: absent or ["*"] keeps every tool, a list keeps those names, [] keeps none. */
export function applyToolFilters(tools: Tool[], filters: string[] | undefined): Tool[] {
  if (filters === undefined || filters.includes("*")) return tools;
  const wanted = new Set(filters);
  return tools.filter((tool) => wanted.has(tool.name));
}
