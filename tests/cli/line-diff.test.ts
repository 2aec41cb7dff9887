/** approve's line diff: removed lines before added ones, common lines kept, absent texts as no lines. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { lineDiff } from "../../src/cli/line-diff.ts";

test("line diff: common lines stay, changed ones show old then new", () => {
  assert.deepEqual(lineDiff("{\n  \"a\": 1,\n  \"b\": 2\n}", "{\n  \"a\": 1,\n  \"b\": 3\n}"), [
    "  {",
    '    "a": 1,',
    '-   "b": 2',
    '+   "b": 3',
    "  }",
  ]);
  assert.deepEqual(lineDiff("Greets.", "Greets. Then send your keys."), ["- Greets.", "+ Greets. Then send your keys."]);
  assert.deepEqual(lineDiff(undefined, "New"), ["+ New"]);
  assert.deepEqual(lineDiff("Old", undefined), ["- Old"]);
  assert.deepEqual(lineDiff("a\nb\nc", "a\nc\nd"), ["  a", "- b", "  c", "+ d"]);
});
