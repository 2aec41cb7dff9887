/**
 * The ranker on everyday requests over the three reference servers' real tool lists (the everyday
 * set's, eval/everyday, in the repository): a request that has a fitting tool never gets nothing,
 * and the phrasings issue 52 names find their tool among the first few.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { type SearchEntry, ToolIndex } from "../../src/search/index.ts";
import { repoRoot } from "../helpers/runtime.ts";

const folder = `${repoRoot}/eval/everyday`;
const listing = JSON.parse(readFileSync(`${folder}/reference-tools.json`, "utf8")).servers as Record<string, SearchEntry[]>;
const entries: SearchEntry[] = Object.entries(listing).flatMap(([server, tools]) =>
  tools.map((tool) => ({ toolbox: "default", server, name: tool.name, description: tool.description, inputSchema: tool.inputSchema }))
);
const index = new ToolIndex(entries);
const top = (query: string, limit: number) => index.search(query, { limit }).map((hit) => `${hit.entry.server}/${hit.entry.name}`);

test("everyday: every request of the set's dev half over the reference servers gets at least one tool, and one that fits in the first 10 for most", () => {
  const items = (JSON.parse(readFileSync(`${folder}/requests.json`, "utf8")).items as {
    corpus: string;
    split: string;
    query: string;
    needs: string[][];
  }[])
    .filter((item) => item.corpus === "reference" && item.split === "dev");
  assert.ok(items.length >= 40);
  const empty = items.filter((item) => top(item.query, 10).length === 0).map((item) => item.query);
  assert.deepEqual(empty, []);
  const met = items.filter((item) => item.needs.every((alts) => top(item.query, 10).some((key) => alts.includes(key)))).length;
  assert.ok(met / items.length >= 0.85, `${met} of ${items.length} in the first 10`);
});

test("everyday: issue 52's phrasings and plain requests find their tool among the first few", () => {
  const cases: [string, string[], number][] = [
    ["forget everything about Bob", ["memory/delete_entities"], 3],
    ["who do I know at Acme", ["memory/search_nodes"], 1],
    ["remember a fact about a person", ["memory/create_entities", "memory/add_observations"], 5],
    ["qué hay en la carpeta documentos", ["filesystem/list_directory", "filesystem/list_directory_with_sizes"], 3],
    ["ändere den Titel in index.html", ["filesystem/edit_file"], 1],
    ["please erase Carol from your memory completely", ["memory/delete_entities"], 3],
    ["lee el archivo config.yaml", ["filesystem/read_text_file", "filesystem/read_file"], 3],
    ["what is written inside the todo.md ?", ["filesystem/read_text_file", "filesystem/read_file"], 5],
  ];
  for (const [query, fits, within] of cases) {
    const found = top(query, within);
    assert.ok(found.some((key) => fits.includes(key)), `"${query}": ${found.join(", ")}`);
  }
});
