/**
 * Code mode's declarations (issue 28): each JSON Schema construct as its TypeScript type, doc
 * comments that no description can break, quoted names; and the declarations of real tool lists
 * (server-everything's, server-memory's) compiled by TypeScript itself, with their size against the
 * same tools as open_toolbox's JSON.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { toolboxDeclarations } from "../../src/code/declarations.ts";
import { schemaType } from "../../src/code/schema-type.ts";
import { toolInfo } from "../../src/tools/open-toolbox.ts";
import type { Tool } from "../helpers/sdk.ts";
import { fixtureTools } from "../fixtures/fixture-tools.ts";
import { referenceTools } from "../helpers/reference-tools.ts";
import { removeTempDirs, tempDir } from "../helpers/workbench.ts";
import { compileProblems as compile } from "../helpers/typescript.ts";

after(removeTempDirs);

const type = (schema: unknown) => schemaType(schema, { docs: false });

test("declarations: scalars, enum, const, arrays, tuples and unions", () => {
  assert.equal(type({ type: "string" }), "string");
  assert.equal(type({ type: "integer" }), "number");
  assert.equal(type({ type: "boolean" }), "boolean");
  assert.equal(type({ type: "null" }), "null");
  assert.equal(type({ enum: ["a", 1, null, true] }), '"a" | 1 | null | true');
  assert.equal(type({ const: "fixed" }), '"fixed"');
  assert.equal(type({ type: "array", items: { type: "string" } }), "string[]");
  assert.equal(type({ type: "array", items: { enum: ["x", "y"] } }), 'Array<"x" | "y">');
  assert.equal(type({ type: "array" }), "unknown[]");
  assert.equal(type({ type: "array", prefixItems: [{ type: "string" }, { type: "number" }] }), "[string, number]");
  assert.equal(type({ type: ["string", "null"] }), "string | null");
  assert.equal(type({ anyOf: [{ type: "string" }, { type: "number" }] }), "string | number");
  assert.equal(type({ oneOf: [{ type: "string" }, { type: "array", items: { type: "string" } }] }), "string | string[]");
  assert.equal(type({ type: "string", nullable: true }), "string | null");
  assert.equal(type({ allOf: [{ type: "object", properties: { a: { type: "string" } } }, { type: "object", properties: { b: { anyOf: [{ type: "number" }, { type: "null" }] } } }] }), "{ a?: string } & { b?: number | null }");
  assert.equal(type({ allOf: [{ anyOf: [{ const: 1 }, { const: 2 }] }, { type: "number" }] }), "(1 | 2) & number");
});

test("declarations: objects: required and optional, additionalProperties, and what is not described is unknown", () => {
  assert.equal(type({ type: "object", properties: { a: { type: "string" }, "b-c": { type: "number" } }, required: ["a"] }), '{ a: string; "b-c"?: number }');
  assert.equal(type({ type: "object" }), "Record<string, unknown>");
  assert.equal(type({ type: "object", additionalProperties: { type: "number" } }), "Record<string, number>");
  assert.equal(type({ type: "object", additionalProperties: false }), "{}");
  assert.equal(type({ type: "object", properties: { a: { type: "string" } }, additionalProperties: true }), "{ a?: string; [key: string]: unknown }");
  assert.equal(type({ properties: { a: { type: "string" } }, required: ["a"] }), "{ a: string }", "an object by its keywords");
  for (const unknown of [{}, true, { type: "file" }, { not: { type: "string" } }, { $ref: "https://example.test/x.json" }]) {
    assert.equal(type(unknown), "unknown", JSON.stringify(unknown));
  }
  assert.equal(type(false), "never");
});

test("declarations: $ref within the schema, and a cycle stops at unknown", () => {
  const schema = {
    type: "object",
    properties: { root: { $ref: "#/$defs/Node" }, old: { $ref: "#/definitions/Leaf" } },
    $defs: { Node: { type: "object", properties: { value: { type: "number" }, next: { $ref: "#/$defs/Node" } }, required: ["value"] } },
    definitions: { Leaf: { enum: ["l"] } },
  };
  assert.equal(type(schema), '{ root?: { value: number; next?: unknown }; old?: "l" }');
  assert.equal(type({ $ref: "#/$defs/Missing" }), "unknown");
});

test("declarations: a tool's description and each property's are doc comments that `*/` cannot close", () => {
  const tool: Tool = {
    name: "x-y.z",
    description: "Ends a comment */ here\nand has a second line",
    inputSchema: { type: "object", properties: { path: { type: "string", description: "no */ escape" } }, required: ["path"] },
  };
  const text = toolboxDeclarations([{ name: "my server", tools: [tool] }]);
  assert.equal(
    text,
    [
      "declare const tools: {",
      '  "my server": {',
      "    /**",
      "     * Ends a comment *\\/ here",
      "     * and has a second line",
      "     */",
      '    "x-y.z"(args: {',
      "      /** no *\\/ escape */",
      "      path: string;",
      "    }): Promise<unknown>;",
      "  };",
      "};",
    ].join("\n"),
  );
});

test("declarations: arguments are optional when nothing is required; the return type is the outputSchema's", () => {
  const text = toolboxDeclarations([{ name: "fx", tools: fixtureTools("A") }]);
  assert.match(text, /\n {4}pid\(args\?: Record<string, unknown>\): Promise<unknown>;/);
  assert.match(text, /\n {4}echo\(args: \{ text: string \}\): Promise<unknown>;/);
  assert.match(text, /\n {4}structured\(args\?: Record<string, unknown>\): Promise<\{ label: string; n: number \}>;/);
  assert.match(text, /\n {4}"x-y\.z"\(args\?: Record<string, unknown>\): Promise<unknown>;/);
  assert.match(text, /\n {4}complex\(args: \{ filter: \{ tags\?: string\[\]; limit\?: number \}; mode\?: "fast" \| "slow" \}\): Promise<unknown>;/);
});

test("declarations: server-everything's and server-memory's tools compile, and a script typed against them checks", async (t) => {
  const dir = tempDir();
  const servers = [
    { name: "everything", tools: await referenceTools("everything") },
    { name: "memory", tools: await referenceTools("memory", [], { MEMORY_FILE_PATH: `${dir}/memory.jsonl` }) },
    { name: "filesystem", tools: await referenceTools("filesystem", [dir]) },
  ];
  const declarations = toolboxDeclarations(servers);
  const script = `${declarations}
async function main(): Promise<number> {
  const sum = await tools.everything["get-sum"]({ a: 1, b: 2 });
  const weather = await tools.everything["get-structured-content"]({ location: "Chicago" });
  await tools.memory.create_entities({ entities: [{ name: "a", entityType: "t", observations: [] }] });
  const graph = await tools.memory.read_graph();
  return graph.entities.filter((e) => e.entityType === "t").length + weather.temperature + Number(sum);
}
export { main };
`;
  assert.deepEqual(compile(script), []);
  // The check is real: a wrong argument is an error.
  assert.ok(compile(`${declarations}\nvoid tools.memory.create_entities({ entities: "x" });\nexport {};\n`).length > 0);
  const bytes = (text: string) => new TextEncoder().encode(text).length;
  for (const server of servers) {
    const json = bytes(JSON.stringify(server.tools.map((tool) => toolInfo(tool, "dev", server.name, false))));
    const withOutput = bytes(JSON.stringify(server.tools.map((tool) => toolInfo(tool, "dev", server.name, true))));
    const declared = bytes(toolboxDeclarations([server]));
    t.diagnostic(`${server.name}: ${server.tools.length} tools, declarations ${declared} B, open_toolbox full ${json} B (${withOutput} B with outputSchema), ratio ${(declared / json).toFixed(2)}`);
    assert.ok(declared < json, `${server.name}: declarations ${declared} B, JSON ${json} B`);
  }
});
