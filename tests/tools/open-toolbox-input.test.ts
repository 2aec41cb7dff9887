/** open_toolbox's optional inputs: wrong values are refused before anything is opened. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ToolDispatcher } from "../../src/tools/dispatcher.ts";
import { openToolbox } from "../../src/tools/open-toolbox.ts";
import type { ToolContext } from "../../src/tools/tool.ts";

const dispatcher = new ToolDispatcher([openToolbox]);
/** No registry: input that fails the schema never reaches run(). */
const refuse = async (args: Record<string, unknown>) => {
  const result = await dispatcher.call("open_toolbox", { toolbox_name: "dev", ...args }, {} as ToolContext);
  assert.equal(result.isError, true);
  return (result.content[0] as { text: string }).text;
};

test("open_toolbox input: detail is full or summary, tools an array of names", async () => {
  assert.equal(await refuse({ detail: "short" }), 'Invalid parameters: detail must be "full" or "summary"');
  assert.equal(await refuse({ tools: "echo" }), "Invalid parameters: tools must be an array of tool names");
  assert.equal(await refuse({ tools: ["echo", 3] }), "Invalid parameters: tools.1: Expected a tool name");
});
