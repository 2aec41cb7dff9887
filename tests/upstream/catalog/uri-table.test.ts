/** Routing resource URIs to servers: listed, learned from tool results, matched by templates; conflicts by configuration order. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { MAX_LEARNED_URIS, templatePattern, UriTable } from "../../../src/upstream/catalog/uri-table.ts";
import { learnUris } from "../../../src/upstream/catalog/learn-uris.ts";
import { lazyJsonObject } from "../../../src/transport/raw-json.ts";
import type { CallToolResult } from "../../../src/protocol/sdk.ts";

const a = { toolbox: "dev", server: "a", rank: 0 };
const b = { toolbox: "dev", server: "b", rank: 1 };

test("URI table: a listed URI goes to its server; one listed by two goes to the first in configuration order", () => {
  const table = new UriTable();
  table.setListed(b, ["file:///shared", "file:///b"]);
  table.setListed(a, ["file:///shared"]);
  assert.equal(table.ownerOf("file:///b"), b);
  assert.equal(table.ownerOf("file:///shared"), a);
  assert.equal(table.ownerOf("file:///none"), undefined);
  // A new list replaces the server's old one.
  table.setListed(a, []);
  assert.equal(table.ownerOf("file:///shared"), b);
});

test("URI table: a URI matches a template; an exact URI beats a template; templates conflict by configuration order", () => {
  const table = new UriTable();
  table.setTemplates(b, ["demo://text/{id}"]);
  table.setTemplates(a, ["demo://text/{id}", "repo://{owner}/{repo}/issues{?state}"]);
  assert.equal(table.ownerOf("demo://text/7"), a);
  assert.equal(table.ownerOf("repo://me/x/issues?state=open"), a);
  assert.equal(table.ownerOf("demo://text/7/more"), undefined, "a simple variable stops at /");
  table.setListed(b, ["demo://text/7"]);
  assert.equal(table.ownerOf("demo://text/7"), b);
  assert.equal(table.ownerOfTemplate("demo://text/{id}"), a);
});

test("URI table: URIs in a parsed tool result are learned; a result relayed raw is not looked into", () => {
  const table = new UriTable();
  const result: CallToolResult = {
    content: [
      { type: "text", text: "links" },
      { type: "resource_link", uri: "demo://x/1", name: "one" },
      { type: "resource", resource: { uri: "demo://x/2", text: "two" } },
    ],
  };
  learnUris(table, b, result);
  assert.equal(table.ownerOf("demo://x/1"), b);
  assert.equal(table.ownerOf("demo://x/2"), b);
  const raw = lazyJsonObject([new TextEncoder().encode(JSON.stringify({ content: [{ type: "resource_link", uri: "demo://x/3", name: "3" }] }))]);
  learnUris(table, b, raw as CallToolResult);
  assert.equal(table.ownerOf("demo://x/3"), undefined);
});

test("URI table: a URI one server lists and another's tool returned goes to the first in configuration order, either way round", () => {
  // The first server lists it, a later server's tool returns it.
  const listedFirst = new UriTable();
  listedFirst.setListed(a, ["file:///shared"]);
  listedFirst.learn(b, "file:///shared");
  assert.equal(listedFirst.ownerOf("file:///shared"), a);
  // A later server lists it, the first server's tool returns it.
  const learnedFirst = new UriTable();
  learnedFirst.setListed(b, ["file:///shared"]);
  learnedFirst.learn(a, "file:///shared");
  assert.equal(learnedFirst.ownerOf("file:///shared"), a);
  // Learned by both: the first keeps it, whichever returned it last.
  const both = new UriTable();
  both.learn(b, "demo://x");
  both.learn(a, "demo://x");
  both.learn(b, "demo://x");
  assert.equal(both.ownerOf("demo://x"), a);
});

test("URI table: learned URIs are bounded; the oldest is forgotten first", () => {
  const table = new UriTable();
  for (let i = 0; i <= MAX_LEARNED_URIS; i++) table.learn(a, `demo://n/${i}`);
  assert.equal(table.ownerOf("demo://n/0"), undefined);
  assert.equal(table.ownerOf(`demo://n/${MAX_LEARNED_URIS}`), a);
});

test("URI templates: RFC 6570 operators as patterns", () => {
  assert.ok(templatePattern("file:///{+path}").test("file:///a/b/c.txt"));
  assert.ok(templatePattern("x://{a}{/rest}").test("x://one/two/three"));
  assert.ok(!templatePattern("x://{a}.json").test("x://abc.txt"));
  assert.ok(templatePattern("x://{a}.json").test("x://abc.json"));
});
