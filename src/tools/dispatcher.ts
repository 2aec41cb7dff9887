/**
 * Serves tools/list and tools/call for the meta-tools: validates input with each tool's schema and
 * turns every failure of a meta-tool into a tool result with isError. Only a call to a tool that
 * does not exist is a JSON-RPC error (-32602), as MCP says.
 */
import * as z from "zod";
import { type CallToolResult, ErrorCode, type Tool as McpTool } from "../protocol/sdk.ts";
import { type AnyTool, textResult, type ToolContext } from "./tool.ts";
import { formatIssues } from "./issues.ts";
import { messageOf } from "../protocol/errors.ts";

/** A failure that is the request's fault, not a tool's: answered as a JSON-RPC error. */
export class JsonRpcError extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
    this.name = "JsonRpcError";
  }
}

export class ToolDispatcher {
  #tools: Map<string, AnyTool>;
  /** Built once; a tool's definition stays as first listed, one new to the set is added. */
  listing: McpTool[];

  constructor(tools: AnyTool[]) {
    this.#tools = new Map(tools.map((tool) => [tool.name, tool]));
    this.listing = tools.map(describeTool);
  }

  /**
   * Puts `tools` in place of every tool (the meta-tools of a new configuration); true when the set
   * of meta-tools changed, the one change the client is told of. A meta-tool it had keeps its
   * definition byte for byte as the client first saw it (issue 39): every change of the tool list
   * breaks the client's prompt cache. What a tool does follows the configuration in force all the
   * same: its run reads it at each call.
   */
  setTools(tools: AnyTool[]): boolean {
    const before = new Map(this.listing.map((tool) => [tool.name, tool]));
    const names = this.listing.map((tool) => tool.name).join("\u0000");
    this.#tools = new Map(tools.map((tool) => [tool.name, tool]));
    this.listing = tools.map((tool) => before.get(tool.name) ?? describeTool(tool));
    return this.listing.map((tool) => tool.name).join("\u0000") !== names;
  }

  /** The session offers a tool of this name (a meta-tool of the configuration in force). */
  has(name: string): boolean {
    return this.#tools.has(name);
  }

  async call(name: string, args: unknown, ctx: ToolContext): Promise<CallToolResult> {
    const tool = this.#tools.get(name);
    if (!tool) {
      const known = [...this.#tools.keys()].map((n) => `'${n}'`).join(", ");
      throw new JsonRpcError(ErrorCode.InvalidParams, `Unknown tool '${name}'; available tools: ${known}`);
    }
    const plain = tool.plainInput?.(args ?? {});
    const parsed = plain !== undefined ? { success: true as const, data: plain } : tool.schema.safeParse(args ?? {});
    if (!parsed.success) {
      const hint = tool.invalidInputHint?.(args, parsed.error) ?? "";
      return textResult(`${tool.invalidInputPrefix}: ${formatIssues(parsed.error)}${hint}`, true);
    }
    try {
      const result = await tool.run(parsed.data, ctx);
      if (result.ok) return tool.present(result.value);
      if (result.rpc) throw new JsonRpcError(result.rpc.code, result.error, result.rpc.data);
      return textResult(result.error, true);
    } catch (error) {
      if (error instanceof JsonRpcError) throw error;
      // run() returns failures as values; reaching this is a bug, still reported as a tool result.
      return textResult(`Internal error in ${name}: ${messageOf(error)}`, true);
    }
  }
}

function describeTool(tool: AnyTool): McpTool {
  const jsonSchema = z.toJSONSchema(tool.schema, { io: "input", override: plainRecords });
  const { $schema: _, ...inputSchema } = jsonSchema as Record<string, unknown>;
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: JSON.parse(JSON.stringify(inputSchema)) as McpTool["inputSchema"],
  };
}

/** A record of anything is just "an object" to a model; zod's extra keywords only cost context. */
function plainRecords(ctx: { jsonSchema: Record<string, unknown> }): void {
  if (ctx.jsonSchema.type === "object" && ctx.jsonSchema.propertyNames) {
    delete ctx.jsonSchema.propertyNames;
    delete ctx.jsonSchema.additionalProperties;
  }
}
