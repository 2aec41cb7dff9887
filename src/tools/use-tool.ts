/**
 * `use_tool`: calls one downstream tool by its structured identifier (spec 000, errors of 001). A
 * result over the server's maxResultTokens is cut to a page the model can read on from (issue 28)
 * with the workbench's own tool, `read_result` on the reserved server name `workbench`.
 */
import * as z from "zod";
import type { CallToolResult } from "../protocol/sdk.ts";
import { WORKBENCH_SERVER } from "../config/index.ts";
import { Success, type Tool } from "./tool.ts";
import { nonBlank } from "./issues.ts";
import { exampleForShape } from "./call-example.ts";
import { callTool } from "./pipeline/pipeline.ts";
import { pageResult, resultLimit } from "./page-result.ts";
import { readResult } from "./read-result.ts";

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
  run: async ({ tool: id, arguments: args }, ctx) => {
    if (id.server === WORKBENCH_SERVER) return readResult(id, args, ctx);
    const called = await callTool(id, args, ctx);
    if (!called.ok) return called;
    return Success(pageResult(called.value, ctx.results, resultLimit(ctx.config, id.toolbox, id.server), id.toolbox));
  },
  present: (value) => value,
};
