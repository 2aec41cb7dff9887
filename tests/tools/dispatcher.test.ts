/** The dispatcher's listing when the meta-tools are put anew (those of a new configuration). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ToolDispatcher } from "../../src/tools/dispatcher.ts";
import { openToolboxFor } from "../../src/tools/open-toolbox.ts";
import { useTool } from "../../src/tools/use-tool.ts";
import { runCodeFor } from "../../src/tools/run-code.ts";
import type { WorkbenchConfig } from "../../src/config/index.ts";

const config = (...names: string[]): WorkbenchConfig => ({
  toolboxes: Object.fromEntries(names.map((name) => [name, { description: "", openDetail: "full" as const, mcpServers: {} }])),
});

test("dispatcher: setTools() keeps every definition the client has byte for byte, and says only whether the set of tools changed", () => {
  const dispatcher = new ToolDispatcher([openToolboxFor(config("dev")), useTool]);
  const first = JSON.stringify(dispatcher.listing);
  assert.equal(dispatcher.setTools([openToolboxFor(config("dev")), useTool]), false, "the same description: nothing to tell");
  assert.equal(dispatcher.setTools([openToolboxFor(config("dev", "docs")), useTool]), false, "a toolbox added: the same tools");
  assert.equal(JSON.stringify(dispatcher.listing), first);
  assert.match(dispatcher.listing[0].description ?? "", /Toolboxes: dev\.$/);
});

test("dispatcher: a meta-tool that comes with code mode, and goes with it", () => {
  const coded: WorkbenchConfig = { toolboxes: { dev: { ...config("dev").toolboxes.dev, codeMode: { timeoutMs: 1000, memoryMiB: 64, maxCalls: 10, maxOutputBytes: 1024 } } } };
  const dispatcher = new ToolDispatcher([openToolboxFor(config("dev")), useTool]);
  assert.equal(dispatcher.setTools([openToolboxFor(coded), useTool, runCodeFor(coded)]), true);
  assert.deepEqual(dispatcher.listing.map((tool) => tool.name), ["open_toolbox", "use_tool", "run_code"]);
  assert.equal(dispatcher.setTools([openToolboxFor(config("dev")), useTool]), true);
  assert.deepEqual(dispatcher.listing.map((tool) => tool.name), ["open_toolbox", "use_tool"]);
  assert.match(dispatcher.listing[0].description ?? "", /Toolboxes: dev\.$/, "open_toolbox as first listed, through it all");
});
