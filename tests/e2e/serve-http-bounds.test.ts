/**
 * `serve --http` refusals, over raw HTTP: a body over 4 MiB (413), malformed JSON (a JSON-RPC
 * parse error, and the workbench goes on), a body nested deeper than 1,000 levels (400, not 500),
 * a method other than POST, GET, DELETE (405), a path
 * other than /mcp (404), a request outside any session that does not initialize (400), and a
 * 2026-07-28 request standing alone (its own JSON answer, no session id); a form body on the
 * 2026-07-28 path (415); 300 connections that stall their bodies lock the local user out of nothing.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { startHttpWorkbench } from "../helpers/http-workbench.ts";
import { eventually, fx } from "../helpers/toolbox.ts";
import { removeTempDirs, tempDir, writeConfig } from "../helpers/workbench.ts";
import { runCli } from "../helpers/cli.ts";
import { connect, type Socket } from "node:net";

after(removeTempDirs);

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

test("serve --http: bounds and wrong requests get an HTTP status and a JSON-RPC error, never a crash", async () => {
  const wb = await startHttpWorkbench({ toolboxes: { dev: { description: "Dev tools", mcpServers: { a: fx("a") } } } });
  try {
    const post = (body: string, url = wb.url) => fetch(url, { method: "POST", headers: HEADERS, body });
    const error = async (response: Response) => (await response.json()).error;

    const big = await post(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${"x".repeat(4 * 1024 * 1024)}"}}`);
    assert.equal(big.status, 413);
    assert.match((await error(big)).message, /^Payload too large: a request body may have 4194304 bytes at most$/);

    const malformed = await post('{"jsonrpc":"2.0","id":1,');
    assert.equal(malformed.status, 400);
    assert.deepEqual(await error(malformed), { code: -32700, message: "Parse error: the request body is not valid JSON" });

    const put = await fetch(wb.url, { method: "PUT", headers: HEADERS, body: "{}" });
    assert.equal(put.status, 405);
    assert.equal(put.headers.get("allow"), "POST, GET, DELETE");
    await put.body?.cancel();

    const elsewhere = await post('{"jsonrpc":"2.0","id":1,"method":"ping"}', wb.url.replace(/\/mcp$/, "/other"));
    assert.equal(elsewhere.status, 404);
    assert.equal((await error(elsewhere)).message, 'Not found: "/other": the MCP endpoint is /mcp, or /mcp/<toolbox>[,<toolbox>…]');

    const outside = await post('{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
    assert.equal(outside.status, 400);
    assert.equal((await error(outside)).message, "Bad Request: Mcp-Session-Id header is required");

    const get = await fetch(wb.url, { headers: { accept: "text/event-stream" } });
    assert.equal(get.status, 405);
    await get.body?.cancel();

    // Capabilities nested 20,000 deep (a hub's key is made from them): refused as over stdio, not a 500.
    const deep = `${'{"x":'.repeat(20_000)}{}${"}".repeat(20_000)}`;
    const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"experimental":${deep}}}`;
    const nested = await fetch(wb.url, {
      method: "POST",
      headers: { ...HEADERS, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" },
      body: `{"jsonrpc":"2.0","id":"n1","method":"tools/list","params":{${meta}}}`,
    });
    assert.equal(nested.status, 400);
    assert.deepEqual(await error(nested), { code: -32600, message: "Invalid Request: nested deeper than 1000 levels" });

    // Still serving: a 2026-07-28 request stands alone and gets its answer as JSON.
    const discover = await fetch(wb.url, {
      method: "POST",
      headers: { ...HEADERS, "mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover" },
      body: JSON.stringify({ jsonrpc: "2.0", id: "d1", method: "server/discover", params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } } }),
    });
    assert.equal(discover.status, 200);
    assert.equal(discover.headers.get("mcp-session-id"), null);
    const answer = await discover.json();
    assert.equal(answer.id, "d1");
    assert.deepEqual(answer.result.supportedVersions, ["2026-07-28"]);
  } finally {
    assert.equal(await wb.stop(), 0, wb.stderr());
  }
});

test("serve --http: a bad address exits 2; so does a host beyond loopback without tokens", async () => {
  const path = writeConfig(tempDir(), { toolboxes: { dev: { description: "Dev tools", mcpServers: {} } } });
  const bad = await runCli(["serve", "--http", "host:99999", "--config", path]);
  assert.equal(bad.code, 2);
  assert.equal(bad.stderr, 'mcp-workbench: Option \'--http\' needs [HOST:]PORT with PORT from 0 to 65535: got "host:99999"\n');
  const open = await runCli(["serve", "--http", "0.0.0.0:0", "--config", path]);
  assert.equal(open.code, 2);
  assert.match(open.stderr, /^mcp-workbench: Cannot serve on '0\.0\.0\.0' over HTTP without tokens: .*give each client a token in the configuration, .*or serve on 127\.0\.0\.1\n$/);
});

test("serve --http: without tokens, 300 stalled request bodies leave the local user's requests answered; a form body gets 415", async () => {
  const wb = await startHttpWorkbench({ toolboxes: { dev: { mcpServers: {} } } });
  const { port } = new URL(wb.url);
  const sockets: Socket[] = [];
  try {
    const discover = (type: string) =>
      fetch(wb.url, {
        method: "POST",
        headers: { "content-type": type, accept: "application/json", "mcp-protocol-version": "2026-07-28" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: {} }),
      });
    const form = await discover("application/x-www-form-urlencoded");
    assert.equal(form.status, 415);
    await form.body?.cancel();
    let refused = 0;
    await Promise.all(Array.from({ length: 300 }, () =>
      new Promise<void>((resolve) => {
        const socket = connect(Number(port), "127.0.0.1", () => {
          socket.write("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{");
          resolve();
        });
        socket.once("data", (chunk) => void (/^HTTP\/1\.1 408 /.test(chunk.toString()) && refused++));
        socket.on("error", () => resolve());
        sockets.push(socket);
      })
    ));
    // All 300 are in once all but the 64 bodies read at once have given way (408): awaited, not 500 ms.
    await eventually("the stalled bodies past the 64 read at once given up", () => refused, (count) => count >= 300 - 64, 30_000);
    const started = Date.now();
    const answered = await discover("application/json");
    assert.equal(answered.status, 200, await answered.clone().text());
    await answered.body?.cancel();
    // Locked out, it would wait for a stalled body's 30 s: half of that only catches that, whatever the machine's load.
    assert.ok(Date.now() - started < 15_000, `answered after ${Date.now() - started} ms`);
  } finally {
    for (const socket of sockets) socket.destroy();
    assert.equal(await wb.stop(), 0, wb.stderr());
  }
});
