/** A toolbox's view of a server's tools: its toolFilters. */
import type { Tool } from "../protocol/sdk.ts";

/**
 * `toolFilters`: absent or ["*"] keeps every tool, a list keeps those names, [] keeps none; an entry
 * "!name" drops that tool whatever else the list says, and a list of those alone keeps every other
 * tool (a tool the user turned off in a client stays off: `init` writes Windsurf's disabledTools so).
 * No tool is named "!…": MCP tool names are letters, digits, "_", "-" and ".".
 */
export function applyToolFilters(tools: Tool[], filters: string[] | undefined): Tool[] {
  if (filters === undefined) return tools;
  const denied = new Set(filters.filter((filter) => filter.startsWith("!")).map((filter) => filter.slice(1)));
  const allowed = filters.filter((filter) => !filter.startsWith("!"));
  const all = allowed.includes("*") || (allowed.length === 0 && denied.size > 0);
  const wanted = new Set(allowed);
  return tools.filter((tool) => !denied.has(tool.name) && (all || wanted.has(tool.name)));
}
