/** toolFilters: the spec's forms (all, only these, none) and "!name", which drops a tool whatever else the list says. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { applyToolFilters } from "../../src/toolboxes/filters.ts";

const tools = ["read", "write", "delete"].map((name) => ({ name, inputSchema: { type: "object" as const } }));
const names = (filters: string[] | undefined) => applyToolFilters(tools, filters).map((tool) => tool.name);

test("toolFilters: all, only these, none; \"!name\" drops a tool, alone it keeps every other", () => {
  assert.deepEqual(names(undefined), ["read", "write", "delete"]);
  assert.deepEqual(names(["*"]), ["read", "write", "delete"]);
  assert.deepEqual(names(["read", "delete"]), ["read", "delete"]);
  assert.deepEqual(names([]), []);
  assert.deepEqual(names(["!delete"]), ["read", "write"]);
  assert.deepEqual(names(["*", "!delete", "!write"]), ["read"]);
  assert.deepEqual(names(["read", "delete", "!delete"]), ["read"]);
});
