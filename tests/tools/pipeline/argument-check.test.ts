/** use_tool's argument check: problems with paths and expected types, never the values sent. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkArguments, compiledSchemas } from "../../../src/tools/pipeline/argument-check.ts";
import type { Tool } from "../../helpers/sdk.ts";

const tool = (inputSchema: Record<string, unknown>): Tool => ({ name: "t", inputSchema: { type: "object", ...inputSchema } }) as Tool;

const nested = tool({
  properties: {
    filter: { type: "object", properties: { tags: { type: "array", items: { type: "string" } }, limit: { type: "integer", minimum: 1 } } },
    "odd key": { type: ["string", "null"] },
  },
  required: ["filter"],
});

test("argument check: valid arguments pass", () => {
  assert.deepEqual(checkArguments(nested, { filter: { tags: ["a"], limit: 2 }, "odd key": null }), { ok: true });
});

test("argument check: each problem has its path and the expected type, and names the type sent, not the value", () => {
  const secret = "sk-live-123456";
  const result = checkArguments(nested, { filter: { tags: [secret, 2], limit: 1.5 }, "odd key": 3 });
  assert.deepEqual(result, {
    ok: false,
    problems: [
      "arguments.filter.tags[1]: expected string, got integer",
      "arguments.filter.limit: expected integer, got number",
      'arguments["odd key"]: expected string or null, got integer',
    ],
  });
  assert.ok(!JSON.stringify(result).includes(secret));
  assert.deepEqual(checkArguments(nested, {}), { ok: false, problems: ["arguments.filter: required (expected object)"] });
});

test("argument check: a schema that names another draft is checked with the same keywords", () => {
  const newer = tool({ $schema: "https://json-schema.org/draft/2020-12/schema", properties: { n: { type: "number" } } });
  assert.deepEqual(checkArguments(newer, { n: "1" }), { ok: false, problems: ["arguments.n: expected number, got string"] });
});

test("argument check: a schema that does not compile lets every call through", () => {
  const dangling = tool({ properties: { x: { $ref: "#/definitions/missing" } } });
  assert.deepEqual(checkArguments(dangling, { x: 1 }), { ok: true });
  assert.deepEqual(checkArguments(dangling, { x: 1 }), { ok: true });
});

test("argument check: more than ten problems are counted, not listed", () => {
  const properties = Object.fromEntries(Array.from({ length: 14 }, (_, i) => [`p${i}`, { type: "number" }]));
  const result = checkArguments(tool({ properties }), Object.fromEntries(Object.keys(properties).map((key) => [key, "x"])));
  assert.equal(result.ok, false);
  if (!result.ok) {
    assert.equal(result.problems.length, 11);
    assert.equal(result.problems.at(-1), "and 4 more");
  }
});

test("argument check: exactly ten problems are all listed, eleven give ten and \"and 1 more\"", () => {
  /** A call with `count` wrong arguments (each a string where a number is expected). */
  const wrong = (count: number) => {
    const properties = Object.fromEntries(Array.from({ length: count }, (_, i) => [`p${i}`, { type: "number" }]));
    return checkArguments(tool({ properties }), Object.fromEntries(Object.keys(properties).map((key) => [key, "x"])));
  };
  const listed = (i: number) => `arguments.p${i}: expected number, got string`;
  assert.deepEqual(wrong(10), { ok: false, problems: Array.from({ length: 10 }, (_, i) => listed(i)) });
  assert.deepEqual(wrong(11), { ok: false, problems: [...Array.from({ length: 10 }, (_, i) => listed(i)), "and 1 more"] });
});

test("argument check: formats are not checked (the server knows its own), nor unknown keywords rejected", () => {
  const formatted = tool({ properties: { url: { type: "string", format: "uri" }, n: { type: "number", "x-unit": "ms" } } });
  assert.deepEqual(checkArguments(formatted, { url: "not a uri", n: 1 }), { ok: true });
  // The schema did compile: its types are still checked.
  assert.deepEqual(checkArguments(formatted, { url: "not a uri", n: "1" }), { ok: false, problems: ["arguments.n: expected number, got string"] });
});

test("argument check: a restarted server's tools (new objects, same schemas) are not compiled again", () => {
  const schema = () => ({ properties: { restarted: { type: "string" } }, required: ["restarted"] });
  const before = compiledSchemas();
  for (let restart = 0; restart < 3; restart++) {
    const listed = tool(schema());
    assert.deepEqual(checkArguments(listed, {}), { ok: false, problems: ["arguments.restarted: required (expected string)"] });
    assert.deepEqual(checkArguments(listed, { restarted: "yes" }), { ok: true });
  }
  assert.equal(compiledSchemas(), before + 1);
  // Nor is a schema that does not compile tried again.
  for (let restart = 0; restart < 3; restart++) checkArguments(tool({ properties: { x: { $ref: "#/nowhere" } } }), {});
  assert.equal(compiledSchemas(), before + 2);
});
