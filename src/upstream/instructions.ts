/** The initialize response's `instructions`: what a model reads first about this server. */
import type { WorkbenchConfig } from "../config/index.ts";
import { formatTokens, type ToolboxFigures } from "./toolbox-figures.ts";

/**
 * `figures`: tool counts and token estimates of the toolboxes the listing cache knows, for the
 * client being answered; "about" when they come from lists made for another client's capabilities.
 */
export function buildInstructions(
  config: WorkbenchConfig,
  configPath: string,
  figures: Record<string, ToolboxFigures> = {},
): string {
  const names = Object.keys(config.toolboxes);
  if (names.length === 0) {
    return `MCP Workbench: no toolboxes are configured. Add toolboxes to ${configPath}: they apply without a restart.`;
  }
  const lines = names.map((name) => {
    const toolbox = config.toolboxes[name];
    const count = Object.keys(toolbox.mcpServers).length;
    const described = toolbox.description ? `: ${toolbox.description}` : "";
    const known = Object.hasOwn(figures, name) ? figures[name] : undefined;
    const about = known?.exact === false ? "about " : "";
    const tools = known ? `, ${about}${known.tools} tool${known.tools === 1 ? "" : "s"}, ~${formatTokens(known.tokens)} tokens` : "";
    return `- ${name}${described} (${count} server${count === 1 ? "" : "s"}${tools})`;
  });
  const example = JSON.stringify(names[0]);
  return [
    "MCP Workbench groups MCP servers into toolboxes. Toolboxes:",
    ...lines,
    `First call open_toolbox {"toolbox_name": ${example}} to connect a toolbox and list its tools.`,
    `Then call use_tool {"tool": {"toolbox": ${example}, "server": "<source_server>", "name": "<name>"}, ` +
    `"arguments": {...}} with the toolbox_name, source_server and name of a listed tool.`,
    // Only with tool search on: the instructions are otherwise what they were.
    ...(config.toolSearch
      ? [
        'Not sure which toolbox? search_tools {"query": "what the tool should do"} finds tools in all of them; ' +
        "use_tool calls one directly.",
      ]
      : []),
  ].join("\n");
}
