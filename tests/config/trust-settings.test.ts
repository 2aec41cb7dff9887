/** The configuration's trust keys (issue 29 §2, §3): `confirm` per server, `auditLog` and `auditArguments` at the top. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { validateConfig } from "../../src/config/index.ts";
import { CONFIG_PATH, configErrorOf, IN_FILE, loadJson, rejectsWithConfigError, withServer } from "./helpers.ts";

const AT_FS = "Invalid configuration at toolboxes.dev.mcpServers.fs";
const EXPECTED_CONFIRM = 'expected "never", "destructive", "all" or an array of tool names';

test("config: confirm is never, destructive, all or a list of tool names; absent means never", () => {
  for (const confirm of ["never", "destructive", "all", ["delete_file"], []]) {
    const config = validateConfig(withServer({ command: "x", confirm }));
    assert.deepEqual(config.toolboxes.dev.mcpServers.fs.confirm, confirm);
  }
  assert.equal(validateConfig(withServer({ command: "x" })).toolboxes.dev.mcpServers.fs.confirm, undefined);
  assert.equal(validateConfig(withServer({ url: "https://example.test/mcp", confirm: "all" })).toolboxes.dev.mcpServers.fs.confirm, "all");
  for (const confirm of ["always", true, ["ok", 1], [""], { tools: [] }]) {
    assert.equal(configErrorOf(() => validateConfig(withServer({ command: "x", confirm }))), `${AT_FS}.confirm: ${EXPECTED_CONFIRM}`);
  }
});

test("config: confirm is a server's key, not the top level's", () => {
  assert.match(configErrorOf(() => validateConfig({ confirm: "all", toolboxes: {} })), /unknown key 'confirm'/);
});

test("config: auditLog and auditArguments at the top; a relative auditLog is taken from the file's folder", async () => {
  const base = { toolboxes: { dev: { mcpServers: { fs: { command: "x" } } } } };
  assert.deepEqual(Object.keys((await loadJson(base)).config), ["toolboxes"], "nothing when not set");
  const relative = await loadJson({ ...base, auditLog: "logs/../audit.jsonl", auditArguments: true });
  assert.equal(relative.config.auditLog, `${CONFIG_PATH.replace(/\/[^/]*$/, "")}/audit.jsonl`);
  assert.equal(relative.config.auditArguments, true);
  assert.equal((await loadJson({ ...base, auditLog: "/var/log/wb.jsonl" })).config.auditLog, "/var/log/wb.jsonl");
  // Expanding the servers' variables keeps the top-level keys.
  const expanded = await loadJson({ toolboxes: { dev: { mcpServers: { fs: { command: "${CMD}" } } } }, auditLog: "/a.jsonl" }, { CMD: "run" });
  assert.equal(expanded.config.auditLog, "/a.jsonl");
  await rejectsWithConfigError(loadJson({ ...base, auditLog: "" }), `${IN_FILE}Invalid configuration at auditLog: expected a non-empty string`);
  await rejectsWithConfigError(loadJson({ ...base, auditArguments: "yes" }), `${IN_FILE}Invalid configuration at auditArguments: expected true or false`);
});
