import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { repoRoot } from "../helpers/runtime.ts";
import { configJsonSchema } from "../../src/config/json-schema.ts";

const shipped = () => readFileSync(`${repoRoot}/workbench-config.schema.json`, "utf8");

test("schema: the shipped workbench-config.schema.json is current (regenerate: bun src/main.ts schema > workbench-config.schema.json)", () => {
  assert.equal(shipped(), `${JSON.stringify(configJsonSchema(), null, 2)}\n`);
});

test("schema: generated from the validator: strict objects, a command or a url, the limits of each setting", () => {
  // deno-lint-ignore no-explicit-any
  const schema = configJsonSchema() as Record<string, any>;
  assert.equal(schema.$schema, "http://json-schema.org/draft-07/schema#");
  assert.deepEqual(schema.required, ["toolboxes"]);
  assert.equal(schema.additionalProperties, false);
  assert.deepEqual(Object.keys(schema.properties).slice(0, 3), ["$schema", "$comment", "toolboxes"]);
  const server = schema.properties.toolboxes.additionalProperties.properties.mcpServers.additionalProperties;
  assert.deepEqual(server.anyOf, [{ required: ["command"] }, { required: ["url"] }]);
  assert.equal(server.additionalProperties, false);
  assert.deepEqual(server.properties.command, { type: "string", minLength: 1 });
  assert.deepEqual(server.properties.env.additionalProperties, { type: "string" });
  assert.deepEqual(server.properties.connectTimeoutMs, { type: "integer", minimum: 1, maximum: 2147483647 });
});
