/** Summary lines: name, arguments with short types, first sentence of the description. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { firstSentence, summaryLine, typeName } from "../../src/tools/summary.ts";
import type { Tool } from "../helpers/sdk.ts";

const tool = (inputSchema: Record<string, unknown>, description?: string): Tool =>
  ({ name: "t", inputSchema: { type: "object", ...inputSchema }, ...(description !== undefined && { description }) }) as Tool;

test("summary: required arguments first as given, optional ones with a question mark, then the first sentence", () => {
  const readTextFile = tool({
    properties: { path: { type: "string" }, head: { type: "number" }, tail: { type: "number" } },
    required: ["path"],
  }, "Read the complete contents of a file as text. Handles various text encodings.");
  assert.equal(summaryLine(readTextFile), "t(path: string, head?: number, tail?: number): Read the complete contents of a file as text.");
});

test("summary: a tool without description or arguments is its name and ()", () => {
  assert.equal(summaryLine(tool({})), "t()");
  assert.equal(summaryLine(tool({ properties: {} }, "   ")), "t()");
});

test("summary: types: arrays, enums, consts, unions, type lists, and any for what the schema does not say", () => {
  assert.equal(typeName({ type: "array", items: { type: "string" } }), "string[]");
  assert.equal(typeName({ type: "array", items: { anyOf: [{ type: "string" }, { type: "number" }] } }), "(string|number)[]");
  assert.equal(typeName({ type: "array" }), "any[]");
  assert.equal(typeName({ enum: ["fast", "slow"] }), '"fast"|"slow"');
  assert.equal(typeName({ const: 3 }), "3");
  assert.equal(typeName({ type: ["string", "null"] }), "string|null");
  assert.equal(typeName({ oneOf: [{ type: "string" }, { type: "string" }, { type: "boolean" }] }), "string|boolean");
  assert.equal(typeName({ type: "object", properties: { a: {} } }), "object");
  assert.equal(typeName({}), "any");
  assert.equal(typeName(true), "any");
});

test("summary: the first sentence ends at '. ', '! ', '? ' or a line break, and is cut at 160 characters with an ellipsis", () => {
  assert.equal(firstSentence("One. Two."), "One.");
  assert.equal(firstSentence("Version 1.2 of this. Next"), "Version 1.2 of this.");
  assert.equal(firstSentence("Really? Yes."), "Really?");
  assert.equal(firstSentence("First line\nsecond line"), "First line");
  assert.equal(firstSentence("No end"), "No end");
  const long = firstSentence(`${"word ".repeat(60)}end.`);
  assert.equal(long.length, 160);
  assert.ok(long.endsWith("…"), long);
});
