/** A server set `"disabled": true`: serving never starts or lists it; check says so; tools and call say so too. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { runCheck } from "../../src/cli/check.ts";
import { runTools } from "../../src/cli/tools.ts";
import { runCall } from "../../src/cli/call.ts";
import { capturedPlatform } from "../helpers/captured-platform.ts";
import { call, fx, opened, openToolbox, spawnLog } from "../helpers/toolbox.ts";
import { tempDir, withWorkbench, writeConfig } from "../helpers/workbench.ts";

test("check, tools, call: a disabled server is never started, check reports it as disabled (exit 0), tools and call name it", async () => {
  const dir = tempDir();
  const log = spawnLog();
  try {
    const configPath = `${dir}/workbench-config.json`;
    // The disabled server reads a variable that is not set: it is not expanded, so the file still loads.
    const off = fx("OFF", { disabled: true, args: [...(fx("OFF").args as string[]), "${NOT_SET_ANYWHERE}"] }, log.env);
    writeConfig(dir, { toolboxes: { dev: { mcpServers: { on: fx("ON", {}, log.env), off } } } });
    const run = async (command: typeof runCheck, positionals: string[], options: Record<string, string | true> = {}) => {
      const { fake, out } = capturedPlatform();
      return { code: await command(fake, { configPath, options, positionals }), ...out };
    };

    const checked = await run(runCheck, []);
    assert.equal(checked.code, 0, checked.stdout + checked.stderr);
    assert.match(checked.stdout, /\ndev +off +- +disabled +- +- +-\n/);
    assert.ok(checked.stdout.includes(`\n  note: disabled in the file ("disabled": true): not started, and not offered to clients; delete that key to use it\n`), checked.stdout);
    assert.ok(checked.stdout.endsWith("All 1 server(s) ok (1 disabled, not started)\n"), checked.stdout);
    const json = JSON.parse((await run(runCheck, [], { "--json": true })).stdout);
    assert.deepEqual(json.servers.map((s: { server: string; ok: boolean; disabled?: true }) => [s.server, s.ok, s.disabled ?? false]), [["on", true, false], ["off", true, true]]);

    const tools = await run(runTools, ["dev"]);
    assert.equal(tools.code, 0, tools.stderr);
    assert.ok(tools.stdout.includes("on/"), tools.stdout);
    assert.ok(!tools.stdout.includes("off/"), tools.stdout);
    assert.equal(tools.stderr, `mcp-workbench: Server 'off' is disabled ("disabled": true in '${configPath}'): not started, its tools not listed\n`);

    const called = await run(runCall, ["dev", "off", "echo", "{}"]);
    assert.equal(called.code, 2);
    assert.equal(called.stderr, `mcp-workbench: Server 'off' in toolbox 'dev' is disabled ("disabled": true in '${configPath}'): delete that key to use it\n`);

    assert.ok(log.spawned().length > 0 && log.spawned().every((line) => line.startsWith("ON ")), log.spawned().join("\n"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("serving: a disabled server is not started, not in open_toolbox, and use_tool cannot reach it", async () => {
  const log = spawnLog();
  const config = { toolboxes: { dev: { mcpServers: { on: fx("ON", {}, log.env), off: fx("OFF", { disabled: true }, log.env) } } } };
  await withWorkbench(config, async (session) => {
    const value = opened(await openToolbox(session, "dev")) as { servers_connected: number; tools: { source_server: string }[] };
    assert.equal(value.servers_connected, 1);
    assert.deepEqual([...new Set(value.tools.map((tool) => tool.source_server))], ["on"]);
    const used = await call(session, "use_tool", { tool: { toolbox: "dev", server: "off", name: "echo" }, arguments: {} });
    assert.equal(used.isError, true);
  });
  assert.ok(log.spawned().length > 0 && log.spawned().every((line) => line.startsWith("ON ")), log.spawned().join("\n"));
});
