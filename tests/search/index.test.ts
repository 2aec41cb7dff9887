/** The ranker: fields, the toolbox and server lift, synonyms, related words, quoted values, narrowing and limits. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { type SearchEntry, ToolIndex, TUNING } from "../../src/search/index.ts";
import { queryTerms } from "../../src/search/query.ts";

const entry = (toolbox: string, server: string, name: string, description: string, extra: Partial<SearchEntry> = {}): SearchEntry =>
  ({ toolbox, server, name, description, ...extra });

const tools = [
  entry("files", "filesystem", "read_text_file", "Read the complete contents of a file as text."),
  entry("files", "filesystem", "list_directory", "Get a listing of all files and directories in a path."),
  entry("files", "filesystem", "write_file", "Create a new file or overwrite an existing one."),
  entry("git", "git", "git_log", "Show the commit logs."),
  entry("git", "git", "git_status", "Show the working tree status."),
  entry("notes", "memory", "create_entities", "Create multiple new entities in the knowledge graph."),
  entry("weather", "forecast", "get_alerts", "Get weather alerts for a US state.", { toolboxDescription: "Weather forecasts and warnings" }),
  entry("sheets", "excel", "excel_write_to_sheet", "Write values to a sheet of a workbook."),
  entry("slides", "office", "new_deck", "Start a ppt deck."),
];
const names = (hits: { entry: SearchEntry }[]) => hits.map((hit) => hit.entry.name);

test("search index: the tool whose name and description hold the query's words comes first", () => {
  const index = new ToolIndex(tools);
  assert.equal(names(index.search("show the commit history log"))[0], "git_log");
  assert.equal(names(index.search("read a text file"))[0], "read_text_file");
});

test("search index: a synonym finds a tool that uses the other word (folder for directory)", () => {
  const index = new ToolIndex(tools);
  assert.equal(names(index.search("what is in this folder"))[0], "list_directory");
});

test("search index: the words of an everyday task find the tool named for it (an umbrella finds the weather, a raffle a random number)", () => {
  const index = new ToolIndex([
    ...tools,
    entry("fun", "random", "random_int", "Return a random integer between two bounds."),
    entry("travel", "lodging", "search_listings", "Search listings of accommodation by city and dates."),
  ]);
  assert.equal(names(index.search("do I need an umbrella"))[0], "get_alerts");
  assert.equal(names(index.search("pick a raffle winner"))[0], "random_int");
  assert.equal(names(index.search("somewhere to stay in Lisbon"))[0], "search_listings");
  // A word of such a group that means something else in a language the ranker reads ("die" in German,
  // "dice" in Spanish, "Rolle" stemmed to "roll") is left out of it.
  for (const request of ["lösche die Datei notes.txt", "qué dice el archivo notes.txt", "ändere die Rolle des Benutzers"]) {
    assert.ok(!names(index.search(request)).includes("random_int"), request);
  }
});

test("search index: the toolbox's description lifts its tools (warnings finds the weather toolbox)", () => {
  const index = new ToolIndex(tools);
  assert.equal(names(index.search("any storm warnings"))[0], "get_alerts");
  const without = new ToolIndex(tools.map((t) => ({ ...t, toolboxDescription: undefined })));
  assert.deepEqual(names(without.search("any storm warnings")), []);
});

test("search index: a word the tools never use finds the words it begins with (pptx finds ppt)", () => {
  const index = new ToolIndex(tools);
  assert.equal(names(index.search("save it to /root/apple.pptx"))[0], "new_deck");
});

test("search index: toolbox narrows, limit bounds, an empty or stop-word-only query finds nothing", () => {
  const index = new ToolIndex(tools);
  assert.deepEqual([...new Set(index.search("show file status", { toolbox: "git" }).map((h) => h.entry.toolbox))], ["git"]);
  assert.equal(index.search("file", { limit: 1 }).length, 1);
  assert.deepEqual(index.search(""), []);
  assert.deepEqual(index.search("the and of"), []);
  assert.deepEqual(new ToolIndex([]).search("file"), []);
  assert.deepEqual(index.search("file", { toolbox: "nope" }), []);
});

test("search index: quoted text weighs half (a value to pass, not a word about the tool), synonyms less", () => {
  const weights = new Map(queryTerms('search "report" folder', TUNING).map((q) => [q.term, q.weight]));
  assert.equal(weights.get("search"), 1);
  assert.equal(weights.get("report"), 0.5);
  assert.ok((weights.get("directori") ?? 0) > 0 && (weights.get("directori") ?? 1) < 0.5);
});

test("search index: results are ordered best first with positive scores and stable for equal input", () => {
  const index = new ToolIndex(tools);
  const hits = index.search("create write file");
  assert.ok(hits.length >= 2);
  for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1].score >= hits[i].score);
  assert.deepEqual(names(index.search("create write file")), names(hits));
});
