/** The learn step alone: a call that succeeds tells the session's search which tool it chose; one that fails tells nothing. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { learn } from "../../../src/tools/pipeline/learn.ts";
import { Failure } from "../../../src/tools/pipeline/values.ts";
import type { ToolId } from "../../../src/tools/pipeline/values.ts";
import { resolvedCall, stubNext, TOOL_ID } from "../../helpers/calls.ts";

test("learn: a call that succeeded is the search's judgement; a refused one (withheld, not found) is not", async () => {
  const chosen: ToolId[] = [];
  const search = { found: new Set<string>(), chose: (id: ToolId) => void chosen.push(id) };
  await learn(stubNext().next)(resolvedCall({ session: { search } }));
  assert.deepEqual(chosen, [TOOL_ID]);
  await learn(() => Promise.resolve(Failure("Error executing tool: withheld")))(resolvedCall({ session: { search } }));
  assert.equal(chosen.length, 1);
});

test("learn: a session without tool search goes straight on", async () => {
  const { next, got } = stubNext();
  assert.equal((await learn(next)(resolvedCall({}))).ok, true);
  assert.equal(got.length, 1);
});
