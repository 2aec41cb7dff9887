/** Results the model can page (issue 28): the cut, its boundaries, the note, and reading on to the whole. */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { CallToolResult, ContentBlock } from "../helpers/sdk.ts";
import { overLimit, pageResult, readPage, toolboxResultLimit } from "../../src/tools/page-result.ts";
import { cutLength, pageFrom } from "../../src/tools/result-pages.ts";
import { ResultStore } from "../../src/tools/result-store.ts";
import { estimateTokens } from "../../src/tools/token-estimate.ts";
import { validateConfig } from "../../src/config/index.ts";
import { lazyJsonObject, rawJsonOf } from "../../src/transport/raw-json.ts";
import { type Attributes, NOOP_SPAN, type Span } from "../../src/telemetry/span.ts";

type Text = { type: "text"; text: string };
const text = (value: string): Text => ({ type: "text", text: value });
const note = (result: CallToolResult) => (result.content.at(-1) as Text).text;
const body = (result: CallToolResult) => result.content.slice(0, -1) as ContentBlock[];

/** Follows the notes from the first page to the end, as a model would; bounded. */
function readAll(first: CallToolResult, store: ResultStore): { items: ContentBlock[]; pages: CallToolResult[] } {
  const pages = [first];
  const items: ContentBlock[] = [...body(first)];
  for (let i = 0; i < 10_000; i++) {
    const next = /"arguments":\{"id":"(r\d+)","offset":(\d+)\}/.exec(note(pages.at(-1)!));
    if (!next) break;
    const kept = store.get(next[1])!;
    const offset = Number(next[2]);
    const page = readPage(kept, offset);
    pages.push(page);
    const [head, ...tail] = body(page);
    const last = items.at(-1);
    // A page that starts inside a text goes on with the text the last page cut.
    if (!kept.starts.includes(offset) && head?.type === "text" && last?.type === "text") {
      items[items.length - 1] = text(last.text + head.text);
    } else if (head) items.push(head);
    items.push(...tail);
  }
  return { items, pages };
}

test("page result: a result within the cap is returned as it is, and 0 never cuts", async () => {
  const store = new ResultStore();
  const small = { content: [text("x".repeat(100))] };
  assert.equal(await pageResult(small, store, 100, "dev"), small);
  const big = { content: [text("x".repeat(10_000))] };
  assert.equal(await pageResult(big, store, 0, "dev"), big);
  // A 2026-07-28 question for the client goes as it is, however large its state.
  const question = { content: [], resultType: "input_required", requestState: "s".repeat(10_000) } as CallToolResult;
  assert.equal(await pageResult(question, store, 100, "dev"), question);
  assert.equal(store.bytes, 0);
});

test("page result: overLimit is estimateTokens over the limit, multi-byte characters counted in UTF-8", () => {
  for (const value of ["x".repeat(390), "é".repeat(190), "😀".repeat(95), "a\n\"b".repeat(80)]) {
    const result = { content: [text(value)] };
    for (const limit of [1, 50, 99, 100, 101, 200, 300]) {
      assert.equal(overLimit(result, limit), estimateTokens(result) > limit, `${value.slice(0, 4)} at ${limit}`);
    }
  }
});

test("page result: overLimit stays estimateTokens over the limit across shapes, escapes, multi-byte text and limits", () => {
  const texts = ["", "x", "a\u0001b\u001f", "\u0001".repeat(100), "\u001f".repeat(333), "\"\\".repeat(40), "é".repeat(33), "😀".repeat(17), "\ud800 lone", "line\n".repeat(25), "x".repeat(700)];
  const results: CallToolResult[] = [];
  for (const [index, value] of texts.entries()) {
    results.push({ content: [text(value)] });
    results.push({ content: [text(value), text(texts[(index + 3) % texts.length])], isError: index % 2 === 0 });
    // Shapes the bound does not take: counted in JSON as before.
    results.push({ content: [text(value)], structuredContent: { value } });
    results.push({ content: [{ type: "text", text: value, annotations: { priority: 1 } }] });
    results.push({ content: [{ type: "image", data: value, mimeType: "image/png" }] } as CallToolResult);
  }
  for (const result of results) {
    for (const limit of [1, 10, 50, 100, 160, 200, 400, 500, 800, 1_200, 5_000]) {
      assert.equal(overLimit(result, limit), estimateTokens(result) > limit, `${JSON.stringify(result).slice(0, 60)} at ${limit}`);
    }
  }
});

test("page result: overLimit takes no shortcut for a result JSON.stringify writes otherwise (a hidden text, a toJSON of its own)", () => {
  const large = "y".repeat(10_000);
  const hiddenText = { type: "text", annotations: { note: large } };
  Object.defineProperty(hiddenText, "text", { value: "", enumerable: false });
  const itemToJson = text("");
  Object.defineProperty(itemToJson, "toJSON", { value: () => ({ type: "text", text: large }), enumerable: false });
  const resultToJson = { content: [text("")] };
  Object.defineProperty(resultToJson, "toJSON", { value: () => ({ content: [text(large)] }), enumerable: false });
  for (const result of [{ content: [hiddenText] }, { content: [itemToJson] }, resultToJson] as CallToolResult[]) {
    assert.equal(estimateTokens(result) > 100, true);
    assert.equal(overLimit(result, 100), true, JSON.stringify(result).slice(0, 60));
  }
});

test("page result: a result of a few texts far under the cap is decided without a copy into JSON; another shape is measured in JSON", () => {
  const stringify = JSON.stringify;
  let copies = 0;
  JSON.stringify = ((...args: Parameters<typeof stringify>) => (copies++, stringify(...args))) as typeof stringify;
  try {
    assert.equal(overLimit({ content: [text("hello"), text("é😀".repeat(100))], isError: false }, 25_000), false);
    assert.equal(copies, 0);
    assert.equal(overLimit({ content: [text("hello")], structuredContent: { greeting: "hello" } }, 25_000), false);
    assert.equal(copies, 1);
  } finally {
    JSON.stringify = stringify;
  }
});

test("page result: one huge text is cut to fit, with a note naming the call that reads on, and reads back whole", async () => {
  const store = new ResultStore();
  const lines = Array.from({ length: 3_000 }, (_, i) => `line ${i}: ${"é😀".repeat(i % 7)} end`).join("\n");
  const first = await pageResult({ content: [text(lines)] }, store, 1_000, "dev");
  assert.ok(estimateTokens(first) <= 1_000, `first page is ${estimateTokens(first)} tokens`);
  assert.match(
    note(first),
    /^This result is over maxResultTokens \(1000\)\. Result 'r1': characters 0 to (\d+) of \d+ shown\. \d+ left: read on with use_tool \{"tool":\{"toolbox":"dev","server":"workbench","name":"read_result"\},"arguments":\{"id":"r1","offset":\1\}\} \(kept 30 minutes after the last read\)\.$/,
  );
  // Cut after a line: the page's text ends with a line break.
  assert.ok((body(first)[0] as Text).text.endsWith("\n"));
  const { items, pages } = readAll(first, store);
  assert.deepEqual(items, [text(lines)]);
  assert.ok(pages.length > 5);
  for (const page of pages) assert.ok(estimateTokens(page) <= 1_000, `page of ${estimateTokens(page)} tokens`);
  assert.match(note(pages.at(-1)!), /This is the end of it\.$/);
});

test("page result: a page ends between items when it can, and items that are not text are never cut", async () => {
  const store = new ResultStore();
  const image = { type: "image" as const, data: "A".repeat(6_000), mimeType: "image/png" };
  const content: ContentBlock[] = [text("a".repeat(2_500)), text("b".repeat(2_500)), image, text("c".repeat(500))];
  const first = await pageResult({ content }, store, 1_600, "dev");
  assert.deepEqual(body(first).map((item) => (item as Text).text.length), [2_500, 2_500]);
  assert.match(note(first), /Result 'r1': positions 0 to 5000 of 5501 shown \(a character of text counts 1, and so does an item that is not text\)\./);
  const { items } = readAll(first, store);
  assert.deepEqual(items, content);
});

test("page result: a cut never splits a surrogate pair, and a page always moves on", () => {
  const emoji = "😀".repeat(1_000);
  for (let room = 3; room < 40; room++) {
    const length = cutLength(emoji, room);
    assert.ok(length > 0 && length % 2 === 0, `room ${room}: ${length}`);
  }
  assert.equal(cutLength("x\n" + "y".repeat(100), 50), 47, "no line break in the second half: cut at a character");
  assert.equal(cutLength("y".repeat(40) + "\n" + "y".repeat(100), 50), 41, "after the line break");
  const page = pageFrom({ items: [text(emoji)], starts: [0, emoji.length] }, 0, 1);
  assert.equal(page.end, 2);
});

test("page result: structuredContent over the cap leaves the result: said in the note, read on as the last text", async () => {
  const store = new ResultStore();
  const structuredContent = { rows: Array.from({ length: 400 }, (_, i) => ({ id: i, name: `row ${i}` })) };
  const first = await pageResult({ content: [text("summary")], structuredContent, isError: true }, store, 500, "dev");
  assert.equal(first.structuredContent, undefined);
  assert.equal(first.isError, true);
  assert.match(note(first), /structuredContent was left out: its JSON is the last text of the result\./);
  const { items } = readAll(first, store);
  assert.deepEqual(items, [text("summary"), text(JSON.stringify(structuredContent))]);
  // Mirrored as text (what most servers do): kept once.
  const mirrored = await pageResult({ content: [text(JSON.stringify(structuredContent, null, 2))], structuredContent }, store, 500, "dev");
  assert.match(note(mirrored), /structuredContent was left out: a text item holds the same JSON\./);
  assert.deepEqual(readAll(mirrored, store).items, [text(JSON.stringify(structuredContent, null, 2))]);
});

test("page result: run_code's cap is the toolbox's smallest, 0 (never) counting as none", () => {
  const config = validateConfig({
    maxResultTokens: 9_000,
    toolboxes: {
      a: { mcpServers: { x: { command: "x" }, y: { command: "y", maxResultTokens: 3_000 } } },
      b: { mcpServers: { x: { command: "x", maxResultTokens: 0 } } },
      c: {},
    },
  });
  assert.equal(toolboxResultLimit(config, "a"), 3_000);
  assert.equal(toolboxResultLimit(config, "b"), 0);
  assert.equal(toolboxResultLimit(config, "c"), 25_000);
});

test("page result: a page of a 32 MiB text costs the page: the first and ten more in well under a second", async () => {
  const store = new ResultStore();
  const whole = "x".repeat(32 * 1024 * 1024);
  const started = performance.now();
  const first = await pageResult({ content: [text(whole)] }, store, 25_000, "dev");
  let offset = Number(/"offset":(\d+)/.exec(note(first))![1]);
  for (let i = 0; i < 10; i++) {
    const page = readPage(store.get("r1")!, offset);
    offset = Number(/"offset":(\d+)/.exec(note(page))![1]);
  }
  const ms = performance.now() - started;
  // Measured under Bun: 2.1 s when each page measured the whole rest of the text; now a few ms.
  assert.ok(ms < 1_000, `${ms.toFixed(0)} ms`);
  assert.equal(offset, 11 * (body(first)[0] as Text).text.length);
});

test("pageResult: a result still in the server's bytes and under the cap is passed on unparsed", async () => {
  const bytes = new TextEncoder().encode(JSON.stringify({ content: [{ type: "text", text: "small" }] }));
  const result = lazyJsonObject([bytes]) as CallToolResult;
  assert.equal(await pageResult(result, new ResultStore(), 25_000, "dev"), result);
  assert.ok(rawJsonOf(result), "nothing looked inside it");
});

/** The longest prefix whose JSON fits, as cutLength found it before it measured in one pass (before its line and pair rules). */
function fitsByCopies(text: string, room: number): number {
  let fit = 0;
  for (let n = 1; n <= text.length; n++) if (new TextEncoder().encode(JSON.stringify(text.slice(0, n))).length <= room) fit = n;
  return fit;
}

test("page result: a cut measures the text once, without a JSON copy, and cuts where the copies' measure cuts", () => {
  // Quotes, backslashes, control characters, 2- and 3-byte characters, pairs, and surrogates alone.
  const alphabet = ["a", "\"", "\\", "\n", "\u0001", "\u007f", "é", "€", "😀", "\ud800", "\udc00", " "];
  let seed = 54;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  for (let round = 0; round < 300; round++) {
    const text = Array.from({ length: 1 + Math.floor(random() * 30) }, () => alphabet[Math.floor(random() * alphabet.length)]).join("")
      .replaceAll("\n", "-");
    const room = Math.floor(random() * 80);
    const fit = fitsByCopies(text, room);
    // No line breaks, so only the pair rule and the one-character floor move the cut.
    const pairSplit = fit > 0 && fit < text.length && /[\ud800-\udbff]/.test(text[fit - 1]) && /[\udc00-\udfff]/.test(text[fit]);
    const expected = fit === 0 ? (text.length > 1 && /[\ud800-\udbff]/.test(text[0]) && /[\udc00-\udfff]/.test(text[1]) ? 2 : 1) : fit - (pairSplit ? 1 : 0);
    assert.equal(cutLength(text, room), expected, `${JSON.stringify(text)} in ${room} bytes`);
  }
  const stringify = JSON.stringify;
  let copies = 0;
  JSON.stringify = ((...args: Parameters<typeof stringify>) => (copies++, stringify(...args))) as typeof stringify;
  try {
    assert.equal(cutLength("x".repeat(1_048_576), 100_000), 99_998);
  } finally {
    JSON.stringify = stringify;
  }
  assert.equal(copies, 0, "JSON copies of the text made to measure it");
});

test("pageResult: a result cut into pages is an event of the client request's span (telemetry on); one within the limit is not", async () => {
  const events: { name: string; attributes?: Attributes }[] = [];
  const span: Span = { ...NOOP_SPAN, addEvent: (name, attributes) => (events.push({ name, attributes }), span) };
  const store = new ResultStore();
  await pageResult({ content: [{ type: "text", text: "small" }] }, store, 100, "dev", span);
  const cut = await pageResult({ content: [{ type: "text", text: "word ".repeat(2_000) }] }, store, 100, "dev", span);
  assert.deepEqual(events.map((event) => event.name), ["mcp_workbench.result.paged"]);
  assert.equal(events[0].attributes?.["mcp_workbench.toolbox"], "dev");
  assert.equal(events[0].attributes?.["mcp_workbench.result.first_page_items"], cut.content.length - 1);
  assert.ok(Number(events[0].attributes?.["mcp_workbench.result.bytes"]) >= 10_000);
});
