/**
 * Results the model can page (issue 28) through a real workbench process: a result over
 * maxResultTokens comes cut, with a note that names the read_result call, and the pages read back
 * give the whole, with no server started to read them.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import type { CallToolResult } from "../helpers/sdk.ts";
import { removeTempDirs, withWorkbench } from "../helpers/workbench.ts";
import { fx, opened, openToolbox, spawnLog, useTool } from "../helpers/toolbox.ts";
import { estimateTokens } from "../../src/upstream/toolbox-figures.ts";

after(removeTempDirs);

type Text = { type: "text"; text: string };
const texts = (result: CallToolResult) => result.content.map((item) => (item as Text).text);
const NEXT = /use_tool (\{"tool":\{"toolbox":"dev","server":"workbench","name":"read_result"\},"arguments":\{"id":"r\d+","offset":\d+\}\})/;

test("e2e result pages: a huge text is cut at the cap and read back whole through read_result, no server started", async () => {
  const log = spawnLog();
  const limit = 2_000;
  const config = { toolboxes: { dev: { mcpServers: { fx: fx("A", { maxResultTokens: limit }, log.env) } } } };
  await withWorkbench(config, async (session) => {
    opened(await openToolbox(session, "dev"));
    const sent = Array.from({ length: 4_000 }, (_, i) => `${i} ${"😀é".repeat(i % 5)}`).join("\n");
    const first = await useTool(session, "dev", "fx", "echo", { text: sent });
    assert.equal(first.isError, undefined);
    assert.ok(estimateTokens(first) <= limit, `first page of ${estimateTokens(first)} tokens`);
    const whole = `A: ${sent}`;
    const [page, note] = texts(first);
    assert.ok(whole.startsWith(page) && page.endsWith("\n"), "the start, cut after a line");
    assert.match(note, /^This result is over maxResultTokens \(2000\)\. Result 'r1': characters 0 to \d+ of \d+ shown\. \d+ left: read on/);
    // The server leaves: reading on must not need it.
    await useTool(session, "dev", "fx", "exit", { code: 0 }).catch(() => {});
    let read = page;
    let next = NEXT.exec(note);
    let pages = 1;
    for (; next && pages < 1_000; pages++) {
      const { tool, arguments: args } = JSON.parse(next[1]);
      const result = await useTool(session, tool.toolbox, tool.server, tool.name, args);
      assert.equal(result.isError, undefined, texts(result).join("\n"));
      assert.ok(estimateTokens(result) <= limit, `page ${pages} of ${estimateTokens(result)} tokens`);
      const items = texts(result);
      read += items.slice(0, -1).join("");
      next = NEXT.exec(items.at(-1)!);
      if (!next) assert.match(items.at(-1)!, /This is the end of it\.$/);
    }
    assert.equal(read.length, whole.length);
    assert.ok(read === whole, "the pages joined are the result");
    assert.ok(pages > 10, `${pages} pages`);
    assert.equal(log.spawned().length, 1, "read_result started no server");
  });
});

test("e2e result pages: the default cap is 25,000 tokens; 0 never cuts", async () => {
  const config = { toolboxes: { dev: { mcpServers: { fx: fx("A"), whole: fx("B", { maxResultTokens: 0 }) } } } };
  await withWorkbench(config, async (session) => {
    opened(await openToolbox(session, "dev"));
    const cut = await useTool(session, "dev", "fx", "blob", { bytes: 300_000 });
    const [page, note] = texts(cut);
    assert.ok(page.length > 90_000 && estimateTokens(cut) <= 25_000, `${page.length} characters, ${estimateTokens(cut)} tokens`);
    assert.match(note, new RegExp(`^This result is over maxResultTokens \\(25000\\)\\. Result 'r1': characters 0 to ${page.length} of 300000 shown`));
    const whole = await useTool(session, "dev", "whole", "blob", { bytes: 300_000 });
    assert.deepEqual(texts(whole).map((text) => text.length), [300_000]);
  });
});
