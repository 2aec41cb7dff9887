/** The resolve step alone: from use_tool's identifier to the tool, or the failure that says what is wrong. */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { platform } from "#platform";
import { validateConfig } from "../../../src/config/index.ts";
import { ToolboxRegistry } from "../../../src/toolboxes/registry.ts";
import { resolveTool } from "../../../src/tools/pipeline/resolve.ts";
import type { CallNote, Result } from "../../../src/tools/pipeline/values.ts";
import { fixtureServer } from "../../helpers/runtime.ts";

const host = { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {} };
const config = validateConfig({
  toolboxes: { dev: { mcpServers: { a: fixtureServer("fixture-server.ts", { env: { FIXTURE_LABEL: "a" } }) } } },
});
const registry = new ToolboxRegistry(config, host, {});
after(() => registry.closeAll());

const errorOf = (result: Result<unknown>) => result.ok ? "" : result.error;
const scope = (opens = false) => ({ config, registry, signal: new AbortController().signal, opensToolboxes: () => opens });

test("resolve: a toolbox not configured, and one not open, fail before any server starts", async () => {
  const note: CallNote = {};
  assert.equal(
    errorOf(await resolveTool({ toolbox: "deb", server: "a", name: "echo" }, scope(), note)),
    "Error executing tool: Toolbox 'deb' not found in configuration. Did you mean 'dev'?",
  );
  assert.match(errorOf(await resolveTool({ toolbox: "dev", server: "a", name: "echo" }, scope(), note)), /Toolbox 'dev' is not open; call open_toolbox/);
  assert.equal(registry.get("dev"), undefined, "nothing was opened");
  assert.deepEqual(note, {});
});

test("resolve: a request that stands alone opens the toolbox; the tool found is the server's own", async () => {
  const resolved = await resolveTool({ toolbox: "dev", server: "a", name: "echo" }, scope(true), {});
  assert.ok(resolved.ok, errorOf(resolved));
  assert.equal(resolved.value.tool.name, "echo");
  assert.equal(resolved.value.slot.name, "a");
  assert.ok(resolved.value.serverSession, "connected");
});

test("resolve: a server or tool that is not there is named with the closest names", async () => {
  await registry.open("dev");
  assert.equal(
    errorOf(await resolveTool({ toolbox: "dev", server: "b", name: "echo" }, scope(), {})),
    "Error executing tool: Server 'b' not found in toolbox 'dev'. Did you mean 'a'?",
  );
  assert.equal(
    errorOf(await resolveTool({ toolbox: "dev", server: "a", name: "ecko" }, scope(), {})),
    "Error executing tool: Tool 'ecko' not found in server 'a' (toolbox 'dev'). Did you mean 'echo'?",
  );
});
