/** Results as 2026-07-28 gives them, a large tool result still as the server's bytes. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { modernResult } from "../../../src/upstream/era/modern-result.ts";
import { lazyJsonObject, plainJson, rawJsonOf } from "../../../src/transport/raw-json.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

test("modern result: every result gets resultType; cacheable ones ttlMs 0 and cacheScope private", () => {
  assert.deepEqual(modernResult("tools/call", { content: [] }), { resultType: "complete", content: [] });
  assert.deepEqual(modernResult("tools/list", { tools: [] }), { resultType: "complete", tools: [], ttlMs: 0, cacheScope: "private" });
  assert.deepEqual(modernResult(undefined, {}), { resultType: "complete" });
  // What a server set stays: its cache fields, and an input_required is never made complete.
  assert.deepEqual(modernResult("resources/read", { contents: [], ttlMs: 5, cacheScope: "public" }), {
    resultType: "complete",
    contents: [],
    ttlMs: 5,
    cacheScope: "public",
  });
  const asking = { resultType: "input_required", requestState: "s" };
  assert.equal(modernResult("tools/call", asking), asking);
});

test("modern result: a raw tool result gains resultType without being parsed", () => {
  const raw = lazyJsonObject([bytes('{ "content":[{"type":"text",'), bytes('"text":"big"}]}')]);
  const result = modernResult("tools/call", raw);
  const pieces = rawJsonOf(result);
  assert.ok(pieces, "the result is still raw");
  assert.ok(rawJsonOf(raw), "the original was not looked into");
  assert.deepEqual(plainJson(result), { resultType: "complete", content: [{ type: "text", text: "big" }] });
  // A 2026 server's raw result has its resultType already: left as it is, one name once.
  const modern = lazyJsonObject([bytes('{"content":[],"resultType":"complete"}')]);
  assert.equal(modernResult("tools/call", modern), modern);
  assert.ok(rawJsonOf(modern), "still raw");
  // An empty object has no member to go before: it is parsed, which costs nothing.
  assert.deepEqual(modernResult("tools/call", lazyJsonObject([bytes("{ }")])), { resultType: "complete" });
});
