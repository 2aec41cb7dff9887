/** Did you mean: the closest known names by case, prefix and edit distance. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { alternatives, closestNames, didYouMean, editDistance } from "../../src/config/suggest.ts";

test("suggest: edit distance counts insertions, deletions, substitutions and swapped neighbours", () => {
  assert.equal(editDistance("echo", "echo"), 0);
  assert.equal(editDistance("ecoh", "echo"), 1);
  assert.equal(editDistance("ech", "echo"), 1);
  assert.equal(editDistance("exho", "echo"), 1);
  assert.equal(editDistance("kitten", "sitting"), 3);
  assert.equal(editDistance("", "abc"), 3);
  // Stops early past the limit.
  assert.equal(editDistance("abcdef", "uvwxyz", 2), 3);
});

test("suggest: case, prefix and small edits are close; the exact name and far names are not", () => {
  const tools = ["echo", "read_file", "read_text_file", "write_file", "list_directory", "pid"];
  assert.deepEqual(closestNames("ECHO", tools), ["echo"]);
  assert.deepEqual(closestNames("ecoh", tools), ["echo"]);
  assert.deepEqual(closestNames("list_dir", tools), ["list_directory"]);
  assert.deepEqual(closestNames("read_fil", tools), ["read_file"]);
  assert.deepEqual(closestNames("delete_everything", tools), []);
  assert.deepEqual(closestNames("echo", tools), [], "the name itself is no suggestion");
  // Two-letter prefixes mean nothing.
  assert.deepEqual(closestNames("re", tools), []);
});

test("suggest: best first, at most three", () => {
  assert.deepEqual(closestNames("file", ["file1", "file2", "file3", "file4", "files"]).length, 3);
  assert.deepEqual(closestNames("dev", ["Dev", "devx", "dve"]), ["Dev", "devx", "dve"]);
});

test("suggest: the message tail reads '. Did you mean ...?' and is empty when nothing is close", () => {
  assert.equal(didYouMean("ecoh", ["echo", "pid"]), ". Did you mean 'echo'?");
  assert.equal(didYouMean("zzz", ["echo"]), "");
  assert.equal(alternatives(["a"]), "'a'");
  assert.equal(alternatives(["a", "b"]), "'a' or 'b'");
  assert.equal(alternatives(["a", "b", "c"]), "'a', 'b' or 'c'");
});
