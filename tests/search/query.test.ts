/** A query's terms: what its words imply, and the bounds that keep a query's cost small whatever it holds (issue 52). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { type SearchEntry, ToolIndex, TUNING } from "../../src/search/index.ts";
import { MAX_QUERY_CHARS, MAX_QUERY_TERMS, MAX_QUERY_WORDS, queryTerms } from "../../src/search/query.ts";

const words = (count: number, from = 0) => Array.from({ length: count }, (_, i) => `w${(i + from).toString(36)}x`).join(" ");

test("query: at most MAX_QUERY_WORDS terms of its own and MAX_QUERY_TERMS in all, however many words it has", () => {
  const parsed = queryTerms(words(5000), TUNING);
  assert.ok(parsed.filter((one) => one.weight === 1).length <= MAX_QUERY_WORDS);
  assert.ok(parsed.length <= MAX_QUERY_TERMS);
  // The first words count: a request says what it wants first.
  assert.ok(parsed.some((one) => one.term === "w0x"));
});

test("query: only its first MAX_QUERY_CHARS characters are read", () => {
  const index = new ToolIndex<SearchEntry>([{ toolbox: "t", server: "s", name: "read_file", description: "Read a file" }]);
  assert.equal(index.search(`${"x ".repeat(MAX_QUERY_CHARS)} read file`).length, 0);
  assert.equal(index.search(`${"x ".repeat(10)} read file`).length, 1);
});

test("query: a query of megabytes of distinct words costs about what a 1,000-character one does", () => {
  const entries: SearchEntry[] = Array.from({ length: 500 }, (_, i) => ({
    toolbox: `t${i % 20}`,
    server: `s${i % 50}`,
    name: `tool_${i}_${words(2, i)}`,
    description: `Does ${words(6, i * 3)} things`,
  }));
  const index = new ToolIndex(entries);
  const time = (query: string) => {
    const started = performance.now();
    for (let i = 0; i < 3; i++) index.search(query);
    return performance.now() - started;
  };
  const control = words(200).slice(0, MAX_QUERY_CHARS);
  time(control);
  const huge = words(400_000, 7);
  assert.ok(huge.length > 2_000_000);
  const [controlMs, hugeMs] = [time(control), time(huge)];
  // Measured in the same run: without the bounds the huge query takes seconds, with them a few times the control.
  assert.ok(hugeMs < Math.max(50, controlMs * 10), `huge ${hugeMs.toFixed(1)} ms, control ${controlMs.toFixed(1)} ms`);
});

test("query: a file name, a URL, what an assistant is asked and another language's words say what tool is meant", () => {
  const has = (query: string, term: string) => queryTerms(query, TUNING).some((one) => one.term === term && one.weight > 0);
  assert.ok(has("open notes.txt", "file"));
  assert.ok(!has("open example.com", "file"));
  assert.ok(has("grab https://example.com/post", "url"));
  assert.ok(has("forget everything about Bob", "delet"));
  assert.ok(has("who is at Acme", "search"));
  assert.ok(has("lösche die Datei", "delet") && has("lösche die Datei", "file"));
  assert.ok(has("erase the note", "delet"), "WordNet: erase, delete");
});
