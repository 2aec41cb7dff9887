/** The check-arguments step alone: on when the server's definition says so, and its failure names the schema. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { validateConfig } from "../../../src/config/index.ts";
import { checkCallArguments } from "../../../src/tools/pipeline/check-arguments.ts";
import type { Tool } from "../../helpers/sdk.ts";

const tool = { name: "echo", inputSchema: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { text: { type: "string" } }, required: ["text"] } } as Tool;
const serverOf = (validateArguments: boolean) =>
  validateConfig({ toolboxes: { dev: { mcpServers: { s: { command: "x", validateArguments } } } } }).toolboxes.dev.mcpServers.s;
const id = { toolbox: "dev", server: "s", name: "echo" };

test("check arguments: right arguments pass; wrong ones fail with the problems and the schema without $schema", () => {
  assert.deepEqual(checkCallArguments(id, { text: "hi" }, tool, serverOf(true)), { ok: true, value: undefined });
  const wrong = checkCallArguments(id, { text: 3 }, tool, serverOf(true));
  assert.deepEqual(wrong, {
    ok: false,
    error: "Invalid arguments for tool 'echo' in server 's' (toolbox 'dev'):\n- arguments.text: expected string, got integer\n" +
      `inputSchema: {"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`,
  });
});

test("check arguments: a server whose definition says validateArguments false gets every call", () => {
  assert.equal(checkCallArguments(id, { text: 3 }, tool, serverOf(false)).ok, true);
});
