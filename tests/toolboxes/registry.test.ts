/** The registry's record of open toolboxes, with servers shared across toolboxes. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { platform } from "#platform";
import { validateConfig } from "../../src/config/index.ts";
import { ToolboxRegistry } from "../../src/toolboxes/registry.ts";
import { fixtureServer } from "../helpers/runtime.ts";

const host = { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {} };

test("registry: a toolbox whose servers are all live already (shared with an open toolbox) is open once opened", async () => {
  const q = fixtureServer("fixture-server.ts");
  const config = validateConfig({
    toolboxes: { a: { mcpServers: { q } }, b: { mcpServers: { q: { ...q, toolFilters: ["echo"] } } }, none: { mcpServers: {} } },
  });
  const registry = new ToolboxRegistry(config, host);
  try {
    await registry.open("a");
    assert.equal(registry.get("b"), undefined, "b is not open before it is opened");
    const b = await registry.open("b");
    assert.equal(registry.get("b"), b);
    assert.deepEqual(b.servers[0].tools.map((tool) => tool.name), ["echo"]);
    // A toolbox with no servers has nothing to connect: opening it still opens it.
    await registry.open("none");
    assert.ok(registry.get("none"));
  } finally {
    await registry.closeAll();
  }
});
