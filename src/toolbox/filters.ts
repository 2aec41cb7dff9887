import type { Tool } from "../sdk.ts";

/** `toolFilters`: absent or ["*"] keeps every tool, a list keeps those names, [] keeps none. */
export function applyToolFilters(tools: Tool[], filters: string[] | undefined): Tool[] {
  if (filters === undefined || filters.includes("*")) return tools;
  const wanted = new Set(filters);
  return tools.filter((tool) => wanted.has(tool.name));
}
