/**
 * Capability churn (issue 38): each distinct capability object a client declares used to start new
 * server processes (25 requests, 26 processes). Servers are keyed on what they are given, the
 * capabilities as forwarded downstream and normalised: what changes nothing a server sees starts
 * nothing new.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { startHttpWorkbench } from "../helpers/http-workbench.ts";
import { fx, spawnLog } from "../helpers/toolbox.ts";
import { removeTempDirs } from "../helpers/workbench.ts";

after(removeTempDirs);

const SESSIONS = 20;

/**
 * Twenty capability objects that declare the same to a server (elicitation in form mode, sampling,
 * roots with listChanged) and differ in what no server is given: unknown keys and their values,
 * experimental, tasks, `{}` or `{"form": {}}`.
 */
function capabilities(index: number): Record<string, unknown> {
  const junk = { [`k${index}`]: index };
  const base = { sampling: {}, roots: { listChanged: true } };
  switch (index % 5) {
    case 0:
      return { ...base, experimental: junk, elicitation: {} };
    case 1:
      return { ...base, elicitation: { ...junk }, tasks: junk };
    case 2:
      return { elicitation: { form: { ...junk } }, sampling: { ...junk }, roots: { listChanged: true, ...junk } };
    case 3:
      return { ...base, elicitation: { form: {} }, [`unknown${index}`]: junk };
    default:
      return { ...base, elicitation: { form: {} }, sampling: { note: `${index}` } };
  }
}

test(`capability churn: ${SESSIONS} sessions over serve --http with different capability objects start at most 2 processes of one server`, async (t) => {
  const log = spawnLog();
  const wb = await startHttpWorkbench({ toolboxes: { dev: { mcpServers: { a: fx("a", {}, log.env) } } } });
  try {
    for (let index = 0; index < SESSIONS; index++) {
      const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": capabilities(index) };
      const response = await fetch(wb.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call" },
        body: JSON.stringify({ jsonrpc: "2.0", id: index, method: "tools/call", params: { name: "open_toolbox", arguments: { toolbox_name: "dev" }, _meta: meta } }),
        signal: AbortSignal.timeout(20_000),
      });
      const text = await response.text();
      assert.equal(response.status, 200, text.slice(0, 300));
      assert.match(text, /source_server[^a-z]+a/, text.slice(0, 300));
    }
    const started = log.spawned().filter((line) => line.startsWith("a "));
    t.diagnostic(`${started.length} process(es) of server a for ${SESSIONS} sessions`);
    assert.ok(started.length <= 2, `${started.length} processes of server a for ${SESSIONS} sessions`);
  } finally {
    await wb.stop();
  }
});
