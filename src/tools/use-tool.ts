/** `use_tool`: calls one downstream tool by its structured identifier (spec 000, errors of 001). */
import * as z from "zod";
import type { CallToolResult } from "../protocol/sdk.ts";
import type { Tool } from "./tool.ts";
import { nonBlank } from "./issues.ts";
import { exampleForShape } from "./call-example.ts";
import { callTool } from "./tool-call.ts";

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
  run: ({ tool: id, arguments: args }, ctx) => callTool(id, args, ctx),
  present: (value) => value,
};
