/** The configuration of results the model can page (issue 28): maxResultTokens, and the reserved server name `workbench`. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { validateConfig } from "../../src/config/index.ts";
import { configErrorOf, IN_FILE, loadJson, withServer } from "./helpers.ts";

const errorFor = (data: unknown) => configErrorOf(() => validateConfig(data));

test("config: maxResultTokens is the server's own, else the top level's, else 25,000; 0 is never cut", () => {
  const config = validateConfig({
    maxResultTokens: 4_000,
    toolboxes: {
      dev: { mcpServers: { a: { command: "x", maxResultTokens: 0 }, b: { command: "y" } } },
    },
  });
  assert.equal(config.toolboxes.dev.mcpServers.a.maxResultTokens, 0);
  assert.equal(config.toolboxes.dev.mcpServers.b.maxResultTokens, 4_000);
  assert.equal(validateConfig(withServer({ command: "x" })).toolboxes.dev.mcpServers.fs.maxResultTokens, 25_000);
});

test("config: a bad maxResultTokens is located, at the top level and per server", () => {
  const expected = "expected an integer of tokens, 0 for never cut (at most 134217728)";
  assert.equal(errorFor({ toolboxes: {}, maxResultTokens: -1 }), `Invalid configuration at maxResultTokens: ${expected}`);
  assert.equal(
    errorFor(withServer({ command: "x", maxResultTokens: 2.5 })),
    `Invalid configuration at toolboxes.dev.mcpServers.fs.maxResultTokens: ${expected}`,
  );
  assert.equal(errorFor({ toolboxes: {}, maxResultTokens: 2 ** 27 + 1 }), `Invalid configuration at maxResultTokens: ${expected}`);
});

test("config: a server named workbench is refused: that name reaches the workbench's own tools", async () => {
  const message = "Invalid configuration at toolboxes.dev.mcpServers: name 'workbench' is reserved for the workbench's own tools (read_result, read_skill)";
  assert.equal(errorFor({ toolboxes: { dev: { mcpServers: { workbench: { command: "x" } } } } }), message);
  await assert.rejects(loadJson({ toolboxes: { dev: { mcpServers: { workbench: { command: "x" } } } } }), { message: `${IN_FILE}${message}` });
  // Other spellings are names like any other.
  assert.ok(validateConfig({ toolboxes: { dev: { mcpServers: { Workbench: { command: "x" } } } } }));
});
