/** The context-economy settings: openDetail (top level and per toolbox), validateArguments (top level and per server). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { validateConfig } from "../../src/config/index.ts";
import { configErrorOf } from "./helpers.ts";

test("settings: openDetail comes from the toolbox, else the top level, else full", () => {
  const config = validateConfig({
    openDetail: "summary",
    toolboxes: { a: {}, b: { openDetail: "full" } },
  });
  assert.equal(config.toolboxes.a.openDetail, "summary");
  assert.equal(config.toolboxes.b.openDetail, "full");
  assert.equal(validateConfig({ toolboxes: { a: {} } }).toolboxes.a.openDetail, "full");
  assert.equal(validateConfig({ toolboxes: { a: { openDetail: "summary" } } }).toolboxes.a.openDetail, "summary");
});

test("settings: validateArguments comes from the server, else the top level, else true", () => {
  const config = validateConfig({
    validateArguments: false,
    toolboxes: { dev: { mcpServers: { a: { command: "x" }, b: { command: "y", validateArguments: true } } } },
  });
  assert.equal(config.toolboxes.dev.mcpServers.a.validateArguments, false);
  assert.equal(config.toolboxes.dev.mcpServers.b.validateArguments, true);
  const plain = validateConfig({ toolboxes: { dev: { mcpServers: { a: { command: "x" } } } } });
  assert.equal(plain.toolboxes.dev.mcpServers.a.validateArguments, true);
});

test("settings: bad openDetail and validateArguments values are located and name what is expected", () => {
  assert.equal(
    configErrorOf(() => validateConfig({ toolboxes: {}, openDetail: "short" })),
    'Invalid configuration at openDetail: expected "full" or "summary"',
  );
  assert.equal(
    configErrorOf(() => validateConfig({ toolboxes: { dev: { openDetail: 1 } } })),
    'Invalid configuration at toolboxes.dev.openDetail: expected "full" or "summary"',
  );
  assert.equal(
    configErrorOf(() => validateConfig({ toolboxes: { dev: { mcpServers: { fs: { command: "x", validateArguments: "no" } } } } })),
    "Invalid configuration at toolboxes.dev.mcpServers.fs.validateArguments: expected true or false",
  );
  // openDetail belongs to toolboxes, not servers; validateArguments to servers, not toolboxes.
  assert.equal(
    configErrorOf(() => validateConfig({ toolboxes: { dev: { mcpServers: { fs: { command: "x", openDetail: "full" } } } } })),
    "Invalid configuration at toolboxes.dev.mcpServers.fs: unknown key 'openDetail'",
  );
  assert.equal(
    configErrorOf(() => validateConfig({ toolboxes: { dev: { validateArguments: false } } })),
    "Invalid configuration at toolboxes.dev: unknown key 'validateArguments'",
  );
});
