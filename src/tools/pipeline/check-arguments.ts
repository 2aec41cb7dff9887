/**
 * Step 2 of a tool call, check arguments: when the server's definition says `validateArguments`,
 * the arguments are checked against the tool's inputSchema (argument-check.ts) before any call
 * reaches the server; a wrong call gets what to fix and the schema, never the values sent.
 */
import type { ServerConfig } from "../../config/index.ts";
import type { Tool as McpTool } from "../../protocol/sdk.ts";
import { checkArguments } from "./argument-check.ts";
import { withoutSchemaKey } from "./schema-key.ts";
import { Failure, type Result, Success, type ToolId, whereOf } from "./values.ts";

/** One answer for every call that passes: nothing is made per call for it. */
const PASSED: Result<void> = Object.freeze(Success(undefined));

export function checkCallArguments(id: ToolId, args: Record<string, unknown>, tool: McpTool, server: ServerConfig): Result<void> {
  if (!server.validateArguments) return PASSED;
  const check = checkArguments(tool, args);
  if (check.ok) return PASSED;
  return Failure(
    `Invalid arguments for tool '${id.name}' ${whereOf(id)}:\n${check.problems.map((p) => `- ${p}`).join("\n")}\n` +
      `inputSchema: ${JSON.stringify(withoutSchemaKey(tool.inputSchema))}`,
  );
}
