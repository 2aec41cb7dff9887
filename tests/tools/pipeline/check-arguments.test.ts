/** The check-arguments step alone, with a stub next: on when the server's definition says so, and its failure names the schema. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkCallArguments } from "../../../src/tools/pipeline/check-arguments.ts";
import type { Tool } from "../../helpers/sdk.ts";
import { resolvedCall, serverOf, stubNext, stubTarget } from "../../helpers/calls.ts";

const tool = { name: "echo", inputSchema: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { text: { type: "string" } }, required: ["text"] } } as Tool;
const callWith = (args: Record<string, unknown>, validateArguments: boolean) =>
  resolvedCall({ args, tool, target: stubTarget(serverOf({ validateArguments })).target });

test("check arguments: right arguments go on; wrong ones stop with the problems and the schema without $schema", async () => {
  const { next, got } = stubNext();
  assert.equal((await checkCallArguments(next)(callWith({ text: "hi" }, true))).ok, true);
  assert.equal(got.length, 1);
  const wrong = await checkCallArguments(next)(callWith({ text: 3 }, true));
  assert.deepEqual(wrong, {
    ok: false,
    error: "Invalid arguments for tool 'echo' in server 's' (toolbox 'dev'):\n- arguments.text: expected string, got integer\n" +
      `inputSchema: {"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`,
  });
  assert.equal(got.length, 1, "the wrong call went no further");
});

test("check arguments: a server whose definition says validateArguments false gets every call", async () => {
  const { next, got } = stubNext();
  assert.equal((await checkCallArguments(next)(callWith({ text: 3 }, false))).ok, true);
  assert.equal(got.length, 1);
});
