/**
 * A `serve` token that cannot be read (its variable unset) refuses that client alone: the
 * workbench says so at start and serves the others.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client } from "../helpers/sdk.ts";
import { startHttpWorkbench } from "../helpers/http-workbench.ts";
import { fx } from "../helpers/toolbox.ts";
import { removeTempDirs } from "../helpers/workbench.ts";

after(removeTempDirs);

test("serve --http: an unset token variable refuses its client, says so at start, and the others are served", async () => {
  const wb = await startHttpWorkbench({
    toolboxes: { dev: { description: "Dev tools", mcpServers: { a: fx("a") } } },
    serve: { clients: { alice: { token: "${ALICE_TOKEN}", toolboxes: ["*"] }, bob: { token: "${BOB_TOKEN}", toolboxes: ["*"] } } },
  }, { ALICE_TOKEN: "alice-token-0123456789" });
  try {
    assert.ok(
      wb.stderr().includes(
        "mcp-workbench: Client 'bob' is refused: its token cannot be read: Environment variable BOB_TOKEN is not set (used at serve.clients.bob.token)\n",
      ),
      wb.stderr(),
    );
    const client = new Client({ name: "token-test", version: "1.0.0" });
    const headers = { Authorization: "Bearer alice-token-0123456789" };
    await client.connect(new StreamableHTTPClientTransport(new URL(wb.url), { requestInit: { headers } }));
    const listed = await client.listTools();
    assert.ok(listed.tools.some((tool) => tool.name === "open_toolbox"));
    await client.close();
    for (const token of ["", "${BOB_TOKEN}"]) {
      const refused = await fetch(wb.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", Authorization: `Bearer ${token}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
      await refused.body?.cancel();
      assert.equal(refused.status, 401, `token '${token}'`);
    }
  } finally {
    assert.equal(await wb.stop(), 0, wb.stderr());
  }
});
