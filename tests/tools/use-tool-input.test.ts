/**
 * use_tool's plain input check (issue 42) against its zod schema: whatever the plain check
 * accepts, the schema accepts with the same output; whatever the schema refuses, the plain check
 * leaves to the schema (returns undefined), so the errors keep their wording.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { useTool } from "../../src/tools/use-tool.ts";

const tool = { toolbox: "dev", server: "fs", name: "read_file" };
const inputs: unknown[] = [
  { tool, arguments: { path: "/tmp/a" } },
  { tool },
  { tool, arguments: {} },
  { tool, arguments: { nested: { a: [1, 2] }, n: null } },
  JSON.parse('{"tool": {"toolbox": "a", "server": "b", "name": "c"}, "arguments": {"__proto__": {"x": 1}}}'),
  { tool, arguments: [] },
  { tool, arguments: null },
  { tool, arguments: "text" },
  { tool, extra: 1 },
  { tool: { ...tool, extra: 1 } },
  { tool: { ...tool, name: "" } },
  { tool: { ...tool, name: "   " } },
  { tool: { ...tool, name: 7 } },
  { tool: { toolbox: "dev", server: "fs" } },
  { tool: "dev/fs/read_file" },
  { tool: null },
  {},
  [],
  null,
  "use_tool",
  { toolbox: "dev", server: "fs", tool: "read_file" },
];

// Top-level tests, no describe: Bun counts a describe's tests one by one, Deno as one test with steps,
// and scripts/test.ts holds the two counts equal.
test("use_tool plain input check: accepts only what the schema accepts, with the same output", () => {
  let accepted = 0;
  for (const input of inputs) {
    const plain = useTool.plainInput!(input);
    const parsed = useTool.schema.safeParse(input);
    if (plain === undefined) {
      if (parsed.success) assert.equal(input === null || typeof input !== "object", false, "the schema's accepted input is an object");
      continue;
    }
    accepted++;
    assert.ok(parsed.success, `the schema refuses what the plain check accepted: ${JSON.stringify(input)}`);
    assert.deepEqual(plain, parsed.data);
  }
  assert.equal(accepted, 4);
  assert.equal(useTool.plainInput!(inputs[4]), undefined, "an own __proto__ key is left to the schema");
});

test("use_tool plain input check: refuses every input the schema refuses", () => {
  for (const input of inputs) {
    if (!useTool.schema.safeParse(input).success) assert.equal(useTool.plainInput!(input), undefined, JSON.stringify(input));
  }
});

test("use_tool plain input check: copies the arguments object, as the schema does", () => {
  const args = { path: "/tmp/a" };
  const plain = useTool.plainInput!({ tool, arguments: args });
  assert.deepEqual(plain?.arguments, args);
  assert.notEqual(plain?.arguments, args);
});
