/** `use_tool`: calls one downstream tool by its structured identifier (spec 000, errors of 001). */
import * as z from "zod";
import type { CallToolResult } from "../protocol/sdk.ts";
import { Failure, Success, type Tool } from "./tool.ts";
import { nonBlank } from "./issues.ts";
import { closestToolbox } from "./lookup.ts";
import { alternatives, didYouMean } from "../config/suggest.ts";
import { checkArguments } from "./argument-check.ts";
import { exampleForShape } from "./call-example.ts";
import type { OpenToolbox } from "../toolboxes/registry.ts";
import { messageOf } from "../protocol/errors.ts";
import { withoutSchemaKey } from "./schema-key.ts";
import { urlRequired } from "./url-required.ts";

const schema = z.strictObject({
  tool: z.strictObject({
    toolbox: nonBlank("Toolbox name").describe("toolbox_name from open_toolbox"),
    server: nonBlank("Server name").describe("source_server from open_toolbox"),
    name: nonBlank("Tool name").describe("name from open_toolbox"),
  }, { error: (issue) => issue.input === undefined ? "Tool identifier is required" : "Expected an object" })
    .describe("Which tool to call"),
  arguments: z.record(z.string(), z.unknown(), { error: "Expected an object" })
    .default({})
    .describe("The tool's own arguments, as its inputSchema says"),
});

export const useTool: Tool<typeof schema, CallToolResult> = {
  name: "use_tool",
  description: "Call a tool of an open toolbox. Example: " +
    '{"tool": {"toolbox": "dev", "server": "filesystem", "name": "read_file"}, "arguments": {"path": "/tmp/a.txt"}}',
  schema,
  invalidInputPrefix: "Invalid tool invocation parameters",
  invalidInputHint: exampleForShape,
  async run({ tool: id, arguments: args }, ctx) {
    const where = `in server '${id.server}' (toolbox '${id.toolbox}')`;
    if (!Object.hasOwn(ctx.config.toolboxes, id.toolbox)) {
      return Failure(
        `Error executing tool: Toolbox '${id.toolbox}' not found in configuration${closestToolbox(ctx.config, id.toolbox)}`,
      );
    }
    const toolbox = ctx.registry.get(id.toolbox);
    if (!toolbox) {
      return Failure(
        `Error executing tool: Toolbox '${id.toolbox}' is not open; ` +
          `call open_toolbox with {"toolbox_name": ${JSON.stringify(id.toolbox)}} first`,
      );
    }
    const server = toolbox.servers.find((s) => s.name === id.server);
    if (!server) {
      const servers = toolbox.servers.map((s) => s.name);
      return Failure(
        `Error executing tool: Server '${id.server}' not found in toolbox '${id.toolbox}'${didYouMean(id.server, servers)}`,
      );
    }
    const connected = await ctx.registry.connected(server, ctx.signal);
    if (!connected.ok) return Failure(`Error executing tool '${id.name}' ${where}: ${connected.error}`);
    const { connection } = connected;
    // A tool the server has just added (tools/list_changed) is found once its list has come.
    const find = () => server.tools.find((t) => t.name === id.name);
    const definition = find() ?? await connection.toolsSettled().then(find);
    if (!definition) {
      return Failure(`Error executing tool: Tool '${id.name}' not found ${where}${elsewhere(toolbox, id.server, id.name)}`);
    }
    if (server.config.validateArguments) {
      const check = checkArguments(definition, args);
      if (!check.ok) {
        return Failure(
          `Invalid arguments for tool '${id.name}' ${where}:\n${check.problems.map((p) => `- ${p}`).join("\n")}\n` +
            `inputSchema: ${JSON.stringify(withoutSchemaKey(definition.inputSchema))}`,
        );
      }
    }
    try {
      const result = await server.callTool(connection, id.name, args, {
        signal: ctx.signal,
        onProgress: ctx.onProgress,
        relatedRequestId: ctx.requestId,
        upstream: ctx.upstream,
        input: ctx.input,
      });
      if (ctx.onToolResult) {
        const owner = ctx.registry.configured.find((c) => c.toolbox === id.toolbox && c.server === id.server);
        if (owner) ctx.onToolResult(owner, result);
      }
      return Success(result);
    } catch (error) {
      const text = `Error executing tool '${id.name}' ${where}: ${messageOf(error)}`;
      return urlRequired(error, text, ctx.clientOpensUrls?.() ?? false) ?? Failure(text);
    }
  },
  present: (value) => value,
};

/**
 * The tail of "tool not found": the connected servers of the toolbox that have a tool of exactly
 * that name (the model picked the wrong server), else this server's closest tool names.
 */
function elsewhere(toolbox: OpenToolbox, serverName: string, name: string): string {
  const others = toolbox.servers.filter((s) =>
    s.name !== serverName && s.tools.some((tool) => tool.name === name)
  );
  if (others.length > 0) return `. Did you mean server ${alternatives(others.map((s) => s.name))}?`;
  const server = toolbox.servers.find((s) => s.name === serverName);
  return didYouMean(name, (server?.tools ?? []).map((tool) => tool.name));
}
