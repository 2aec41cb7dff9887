/** The dispatcher's listing when a meta-tool is replaced (open_toolbox for a new configuration). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ToolDispatcher } from "../../src/tools/dispatcher.ts";
import { openToolboxFor } from "../../src/tools/open-toolbox.ts";
import { useTool } from "../../src/tools/use-tool.ts";
import type { WorkbenchConfig } from "../../src/config/index.ts";

const config = (...names: string[]): WorkbenchConfig => ({
  toolboxes: Object.fromEntries(names.map((name) => [name, { description: "", openDetail: "full" as const, mcpServers: {} }])),
});

test("dispatcher: replace() says whether the listing changed, keeps the order, and ignores a tool it does not have", () => {
  const dispatcher = new ToolDispatcher([openToolboxFor(config("dev")), useTool]);
  assert.equal(dispatcher.replace(openToolboxFor(config("dev"))), false, "the same description: nothing to tell");
  assert.equal(dispatcher.replace(openToolboxFor(config("dev", "docs"))), true);
  assert.deepEqual(dispatcher.listing.map((tool) => tool.name), ["open_toolbox", "use_tool"]);
  assert.match(dispatcher.listing[0].description ?? "", /Toolboxes: dev, docs\.$/);
  assert.equal(dispatcher.replace({ ...useTool, name: "unknown" }), false);
  assert.equal(dispatcher.listing.length, 2);
});
