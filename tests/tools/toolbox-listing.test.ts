/** open_toolbox's description names the toolboxes, cut at about 800 characters with "and N more". */
import { test } from "node:test";
import assert from "node:assert/strict";
import { validateConfig } from "../../src/config/index.ts";
import { toolboxListing } from "../../src/tools/lookup.ts";
import { openToolbox, openToolboxFor } from "../../src/tools/open-toolbox.ts";

const config = (toolboxes: Record<string, unknown>) => validateConfig({ toolboxes });

test("toolbox listing: names with descriptions in file order; a toolbox without one is its name", () => {
  assert.equal(
    toolboxListing(config({ dev: { description: "Files and notes" }, ops: {}, docs: { description: "Docs" } })),
    "Toolboxes: dev (Files and notes), ops, docs (Docs).",
  );
  assert.equal(toolboxListing(config({})), "No toolboxes are configured.");
});

test("toolbox listing: past 800 characters the rest is counted", () => {
  const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`box${i}`, { description: "x".repeat(40) }]));
  const text = toolboxListing(config(many));
  const shown = text.match(/box\d+ \(/g)!.length;
  assert.ok(text.length <= 800 + 40, `${text.length} characters`);
  assert.ok(text.endsWith(` and ${40 - shown} more.`), text);
  assert.ok(shown >= 15, `${shown} shown`);
  // One toolbox with a huge description is cut, not dropped.
  const huge = toolboxListing(config({ big: { description: "y".repeat(2_000) } }));
  assert.ok(huge.length <= 820 && huge.includes("…"), huge);
});

test("toolbox listing: open_toolboxFor appends it to the tool's own description", () => {
  const tool = openToolboxFor(config({ dev: { description: "Development" } }));
  assert.equal(tool.description, `${openToolbox.description} Toolboxes: dev (Development).`);
  assert.equal(tool.run, openToolbox.run);
});
