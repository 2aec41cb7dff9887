/**
 * A 2026-07-28 tools/call whose client closes its connection before the response's
 * headers (the first 0.5 s, while the answer may still be plain JSON, pending-reply.ts) must still
 * cancel its call within a few seconds, as closing its stream does once it has begun.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { type HttpWorkbench, startHttpWorkbench } from "../helpers/http-workbench.ts";
import { fx } from "../helpers/toolbox.ts";
import { removeTempDirs } from "../helpers/workbench.ts";

after(removeTempDirs);

const CONFIG = { toolboxes: { dev: { description: "Dev tools", mcpServers: { a: fx("a") } } } };
const ENVELOPE = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };

function post(wb: HttpWorkbench, id: string | number, method: string, params: Record<string, unknown>, signal = AbortSignal.timeout(20_000)) {
  return fetch(wb.url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": method },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: ENVELOPE } }),
    signal,
  });
}

const useTool = (name: string, args: Record<string, unknown>) => ({ name: "use_tool", arguments: { tool: { toolbox: "dev", server: "a", name }, arguments: args } });

async function cancellations(wb: HttpWorkbench): Promise<string> {
  const response = await post(wb, "c", "tools/call", useTool("cancellations", {}));
  const text = await response.text();
  const json = response.headers.get("content-type")?.includes("text/event-stream")
    ? text.split("\n").filter((line) => line.startsWith("data: ")).map((line) => JSON.parse(line.slice(6))).find((m) => "result" in m)
    : JSON.parse(text);
  return json.result.content[0].text;
}

test("serve --http: a 2026-07-28 call whose client leaves before the headers is still cancelled within 5 s", async () => {
  const wb = await startHttpWorkbench(CONFIG);
  try {
    // Warm the hub and the server (so the sleep starts at once).
    assert.equal(await cancellations(wb), "0");
    const calling = new AbortController();
    const sleeping = post(wb, "s", "tools/call", useTool("sleep", { ms: 20_000 }), calling.signal).catch(() => "aborted");
    await new Promise((resolve) => setTimeout(resolve, 150));
    calling.abort();
    assert.equal(await sleeping, "aborted", "the client left before any header came");
    let cancelled = "0";
    const deadline = Date.now() + 5_000;
    while (cancelled === "0" && Date.now() < deadline) {
      cancelled = await cancellations(wb);
      if (cancelled === "0") await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(cancelled, "1", "the call is cancelled within 5 s of the client leaving");
  } finally {
    assert.equal(await wb.stop(), 0, wb.stderr());
  }
});
