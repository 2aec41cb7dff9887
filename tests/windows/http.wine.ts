/**
 * Under Wine: `serve --http` with a token, to the official SDK client over HTTP on loopback, and
 * Ctrl-C to stop it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client } from "../helpers/sdk.ts";
import { cleanUp, described, fixtureServer, place, startWine, suite, textOf, until, waitUntagged, wineEnv, winPath, writeJson } from
  "./wine.ts";

const TOKEN = "wine-token-0123456789";

test("wine: serve --http with a token: 401 without it, a session with it; Ctrl-C stops it and its servers", async () => {
  const at = place();
  try {
    const config = writeJson(`${at.dir}/workbench-config.json`, {
      serve: { clients: { ci: { token: "${WINE_TOKEN}", toolboxes: ["*"] } } },
      toolboxes: { demo: { description: "Served over HTTP", mcpServers: { fx: fixtureServer(at, "server", { FIXTURE_LABEL: "http" }) } } },
    });
    const env = wineEnv(at, { WINE_TOKEN: TOKEN });
    const args = [winPath(suite.workbench), "serve", "--http", "127.0.0.1:0", "--config", winPath(config)];
    const serving = startWine(args, { env, timeoutMs: 60_000 });
    await until(() => /at http:\/\/127\.0\.0\.1:\d+\/mcp/.test(serving.stderr()), 30_000, "the endpoint to be printed");
    const url = new URL(serving.stderr().match(/at (http:\/\/127\.0\.0\.1:\d+\/mcp)/)![1]);
    const refused = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
    assert.equal(refused.status, 401);
    const client = new Client({ name: "wine-http", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
    assert.equal(client.getServerVersion()?.name, "mcp-workbench");
    await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "demo" } });
    const tool = { toolbox: "demo", server: "fx", name: "echo" };
    const echoed = await client.callTool({ name: "use_tool", arguments: { tool, arguments: { text: "over http" } } });
    assert.equal(textOf(echoed), "http: over http");
    process.kill(serving.pid, "SIGINT");
    const ran = await serving.done;
    assert.equal(ran.code, 0, described(ran));
    assert.ok(!ran.stderr.includes(TOKEN), "the token is not logged");
    assert.deepEqual(await waitUntagged(at.tag, 10_000), []);
  } finally {
    cleanUp(at);
  }
});
