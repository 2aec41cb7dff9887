/** `open_toolbox`: connects a toolbox's servers and lists their tools (spec 003). */
import * as z from "zod";
import type { Tool as McpTool } from "../sdk.ts";
import { Failure, Success, type Tool, textResult } from "./tool.ts";
import { nonBlank } from "./issues.ts";
import type { OpenToolbox } from "../toolbox/registry.ts";
import { availableToolboxes } from "./lookup.ts";

const schema = z.strictObject({
  toolbox_name: nonBlank("toolbox_name").describe("Toolbox name, as listed in the server instructions"),
});

export interface ToolInfo {
  name: string;
  toolbox_name: string;
  source_server: string;
  description?: string;
  title?: string;
  inputSchema: McpTool["inputSchema"];
  outputSchema?: McpTool["outputSchema"];
  annotations?: McpTool["annotations"];
}

export interface OpenToolboxResult {
  toolbox: string;
  description: string;
  servers_connected: number;
  tools: ToolInfo[];
  _errors?: string[];
}

export const openToolbox: Tool<typeof schema, OpenToolboxResult> = {
  name: "open_toolbox",
  description: 'Connect a toolbox\'s MCP servers and list their tools. Example: {"toolbox_name": "dev"}. ' +
    "Call each listed tool with use_tool, passing its toolbox_name, source_server and name as " +
    "tool.toolbox, tool.server and tool.name.",
  schema,
  invalidInputPrefix: "Invalid parameters",
  async run({ toolbox_name }, ctx) {
    if (!Object.hasOwn(ctx.config.toolboxes, toolbox_name)) {
      return Failure(`Toolbox '${toolbox_name}' not found in configuration; ${availableToolboxes(ctx.config)}`);
    }
    const toolbox = await ctx.registry.open(toolbox_name);
    const result = describeToolbox(toolbox);
    if (result.servers_connected === 0 && result._errors) {
      return Failure(`All servers in toolbox '${toolbox_name}' failed to connect:\n${result._errors.join("\n")}`);
    }
    return Success(result);
  },
  present: (value) => textResult(JSON.stringify(value)),
};

/** Servers in configuration order, tools in the order each server gave them. */
export function describeToolbox(toolbox: OpenToolbox): OpenToolboxResult {
  const tools: ToolInfo[] = [];
  const errors: string[] = [];
  let connected = 0;
  for (const server of toolbox.servers) {
    if (server.connection) {
      connected++;
      for (const tool of server.connection.tools) tools.push(toolInfo(tool, toolbox.name, server.name));
    } else {
      errors.push(`Failed to connect to server '${server.name}' in toolbox '${toolbox.name}': ${server.error}`);
    }
  }
  const result: OpenToolboxResult = {
    toolbox: toolbox.name,
    description: toolbox.config.description,
    servers_connected: connected,
    tools,
  };
  if (errors.length > 0) result._errors = errors;
  return result;
}

function toolInfo(tool: McpTool, toolbox: string, server: string): ToolInfo {
  return {
    name: tool.name,
    toolbox_name: toolbox,
    source_server: server,
    ...(tool.description !== undefined && { description: tool.description }),
    ...(tool.title !== undefined && { title: tool.title }),
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema !== undefined && { outputSchema: tool.outputSchema }),
    ...(tool.annotations !== undefined && { annotations: tool.annotations }),
  };
}
