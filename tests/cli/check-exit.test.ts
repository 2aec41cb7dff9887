/** check's exit codes, without a whole process around it: 0 all ok, 1 a server failed, 2 usage or configuration. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { runCheck } from "../../src/cli/check.ts";
import { capturedPlatform } from "../helpers/captured-platform.ts";
import { fx } from "../helpers/toolbox.ts";
import { tempDir, writeConfig } from "../helpers/workbench.ts";

/** runCheck on this config file with these options: its exit code and what it wrote. */
async function check(configPath: string, options: Record<string, string | true> = {}) {
  const { fake, out } = capturedPlatform();
  const code = await runCheck(fake, { configPath, options, positionals: [] });
  return { code, ...out };
}

test("check: exit 0 when every server checked is up, 1 when one failed, 2 for an unknown --toolbox", async () => {
  const dir = tempDir();
  try {
    const configPath = `${dir}/workbench-config.json`;
    // The fixture exits with code 4 at start while the file named exists: the config file does.
    const failing = fx("B", {}, { FIXTURE_FAIL_IF_EXISTS: configPath });
    writeConfig(dir, { toolboxes: { good: { mcpServers: { a: fx("A") } }, broken: { mcpServers: { a: fx("A"), b: failing } } } });

    const good = await check(configPath, { "--toolbox": "good" });
    assert.equal(good.code, 0, good.stderr);
    assert.ok(good.stdout.endsWith("All 1 server(s) ok\n"), good.stdout);

    const all = await check(configPath);
    assert.equal(all.code, 1, all.stderr);
    assert.ok(all.stdout.endsWith("1 of 3 server(s) failed\n"), all.stdout);

    const unknown = await check(configPath, { "--toolbox": "nope" });
    assert.equal(unknown.code, 2);
    assert.equal(unknown.stderr, `mcp-workbench: Toolbox 'nope' not found in configuration '${configPath}'; available toolboxes: 'good', 'broken'\n`);
    assert.equal(unknown.stdout, "");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("check: exit 2 for a configuration file that is missing or invalid, with nothing on stdout", async () => {
  const dir = tempDir();
  try {
    const missing = await check(`${dir}/none.json`);
    assert.equal(missing.code, 2);
    assert.ok(missing.stderr.startsWith(`mcp-workbench: Configuration file not found: '${dir}/none.json'`), missing.stderr);
    assert.equal(missing.stdout, "");

    const invalid = `${dir}/invalid.json`;
    writeFileSync(invalid, '{"toolboxes": 3}');
    const bad = await check(invalid);
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, `mcp-workbench: In configuration file '${invalid}': Invalid configuration at toolboxes: expected an object of toolboxes\n`);
    assert.equal(bad.stdout, "");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
