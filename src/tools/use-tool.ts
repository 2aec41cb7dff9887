/**
 * `use_tool`: calls one downstream tool by its structured identifier (spec 000, errors of 001). A
 * result over the server's maxResultTokens is cut to a page the model can read on from (issue 28)
 * with the workbench's own tool, `read_result` on the reserved server name `workbench`; its other
 * tool, `read_skill`, reads a file of a server's skill (read-skill.ts).
 */
import * as z from "zod";
import type { CallToolResult } from "../protocol/sdk.ts";
import { WORKBENCH_SERVER } from "../config/index.ts";
import { Success, type Tool } from "./tool.ts";
import { nonBlank } from "./issues.ts";
import { exampleForShape } from "./call-example.ts";
import { runToolCall } from "./pipeline/pipeline.ts";
import { pageResult, resultLimit } from "./page-result.ts";
import { readResult } from "./read-result.ts";
import { READ_SKILL, readSkill } from "./read-skill.ts";

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
  plainInput,
  run: async ({ tool: id, arguments: args }, ctx) => {
    if (id.server === WORKBENCH_SERVER) return id.name === READ_SKILL ? await readSkill(id, args, ctx) : await readResult(id, args, ctx);
    const { session } = ctx;
    const called = await runToolCall(session, ctx.request, id, args);
    if (!called.ok) return called;
    const limit = resultLimit(session.config, id.toolbox, id.server);
    return Success(await pageResult(called.value, session.results, limit, id.toolbox, ctx.request.span));
  },
  present: (value) => value,
};

/**
 * The schema's output for a well-formed call, without zod: `tool` with exactly its three non-blank
 * strings, `arguments` absent or a plain object, no other key. Anything else goes to the schema.
 */
function plainInput(input: unknown): z.output<typeof schema> | undefined {
  if (!isPlainObject(input)) return undefined;
  let keys = 0;
  for (const key in input) {
    if (key !== "tool" && key !== "arguments") return undefined;
    keys++;
  }
  const { tool, arguments: args } = input as { tool?: unknown; arguments?: unknown };
  if (!isPlainObject(tool) || (args !== undefined && !isPlainObject(args))) return undefined;
  // zod's copy of a record drops an own "__proto__" key: such arguments keep going through it.
  if (args !== undefined && Object.hasOwn(args, "__proto__")) return undefined;
  const { toolbox, server, name } = tool as Record<string, unknown>;
  if (!filled(toolbox, server, name) || Object.keys(tool).length !== 3) return undefined;
  const id = { toolbox, server, name } as { toolbox: string; server: string; name: string };
  if (keys !== Object.keys(input).length) return undefined;
  return { tool: id, arguments: { ...(args as Record<string, unknown> | undefined) } };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Each a string with more than white space (one check for the three names: it is on every call's way). */
function filled(...values: unknown[]): boolean {
  for (const value of values) if (typeof value !== "string" || value.trim() === "") return false;
  return true;
}
