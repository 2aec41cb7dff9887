/** Search terms: identifiers split, stop words dropped, stems, data runs ignored. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { splitIdentifier, terms, words } from "../../src/search/text.ts";

test("text: camelCase, PascalCase, snake_case, kebab-case and dotted names split into words", () => {
  assert.equal(splitIdentifier("readTextFile"), "read text file");
  assert.equal(splitIdentifier("HTMLParser"), "html parser");
  assert.equal(splitIdentifier("list_directory-with.sizes"), "list directory with sizes");
});

test("text: terms drop stop words and stem the rest, so a query and a name meet", () => {
  assert.deepEqual(terms("Please show me the files in this folder"), ["show", "file", "folder"]);
  assert.deepEqual(terms("list_directories"), terms("listing directory"));
});

test("text: a long run of letters and digits (base64, a hash) is data, not words", () => {
  assert.deepEqual(words(`What does this image mean? ${"iVBORw0KGgoAAAANSUhEUgAAAgAAAAIACAYAAAD0eNT6".repeat(2)}`), ["what", "does", "this", "image", "mean"]);
});
