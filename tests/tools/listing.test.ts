/** What a client (and its model) reads about the meta-tools: tools/list, built from the zod schemas. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ToolDispatcher } from "../../src/tools/dispatcher.ts";
import { openToolbox } from "../../src/tools/open-toolbox.ts";
import { useTool } from "../../src/tools/use-tool.ts";

const [open, use] = new ToolDispatcher([openToolbox, useTool]).listing;

test("listing: open_toolbox takes a non-empty toolbox_name, and optionally a detail level or tool names", () => {
  assert.equal(open.name, "open_toolbox");
  assert.deepEqual(open.inputSchema, {
    type: "object",
    properties: {
      toolbox_name: { type: "string", minLength: 1, description: "Toolbox name, as listed in the server instructions" },
      detail: { type: "string", enum: ["full", "summary"] },
      tools: { type: "array", items: { type: "string" } },
    },
    required: ["toolbox_name"],
    additionalProperties: false,
  });
});

test("listing: use_tool is strict at both levels with {toolbox, server, name} and optional arguments", () => {
  assert.equal(use.name, "use_tool");
  const schema = use.inputSchema as Record<string, any>;
  assert.equal(schema.additionalProperties, false);
  assert.deepEqual(schema.required, ["tool"]);
  const tool = schema.properties.tool;
  assert.equal(tool.additionalProperties, false);
  assert.deepEqual(tool.required, ["toolbox", "server", "name"]);
  for (const field of ["toolbox", "server", "name"]) {
    assert.equal(tool.properties[field].type, "string");
    assert.equal(tool.properties[field].minLength, 1);
    assert.ok(tool.properties[field].description, `${field} has a description`);
  }
  assert.deepEqual(schema.properties.arguments, {
    type: "object",
    default: {},
    description: "The tool's own arguments, as its inputSchema says",
  });
  assert.ok(tool.description);
});

test("listing: descriptions are short and carry an example built from open_toolbox's fields", () => {
  assert.ok(open.description!.includes('{"toolbox_name": "dev"}'));
  assert.ok(open.description!.includes("toolbox_name, source_server and name"));
  assert.ok(use.description!.includes('{"tool": {"toolbox": "dev", "server": "filesystem", "name": "read_file"}'));
  // Summaries and tools on demand cost about 230 bytes here and save thousands per open toolbox.
  const bytes = JSON.stringify([open, use]).length;
  assert.ok(bytes < 1_650, `tools/list is ${bytes} bytes`);
});
