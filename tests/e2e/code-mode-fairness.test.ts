/**
 * Code mode's workers shared among clients, end to end over `serve --http` with two token
 * clients: while client a runs 8 endless scripts, client b's one-line run_code answers within 3 s.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client } from "../helpers/sdk.ts";
import { startHttpWorkbench } from "../helpers/http-workbench.ts";
import { fx } from "../helpers/toolbox.ts";
import { removeTempDirs } from "../helpers/workbench.ts";

after(removeTempDirs);

const sha = (token: string) => createHash("sha256").update(token).digest("hex");

test("code mode fairness: client b's one-line run_code answers within 3 s while client a runs 8 endless scripts", async () => {
  const wb = await startHttpWorkbench({
    codeMode: { timeoutMs: 30_000 },
    toolboxes: { dev: { mcpServers: { s: fx("s") } } },
    serve: { clients: { a: { tokenSha256: sha("token-of-a-0123"), toolboxes: ["*"] }, b: { tokenSha256: sha("token-of-b-0123"), toolboxes: ["*"] } } },
  });
  const connect = async (token: string) => {
    const client = new Client({ name: "fairness", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(wb.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    return client;
  };
  const [a, b] = await Promise.all([connect("token-of-a-0123"), connect("token-of-b-0123")]);
  const runCode = (client: Client, code: string) => client.callTool({ name: "run_code", arguments: { toolbox: "dev", code } }, undefined, { timeout: 60_000 });
  try {
    // Each client's server is up before the clock starts.
    await Promise.all([runCode(a, "return 0;"), runCode(b, "return 0;")]);
    const endless = Array.from({ length: 8 }, () => runCode(a, "for (;;) {}").catch(() => undefined));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const started = Date.now();
    const quick = await runCode(b, "return 1 + 1;");
    const took = Date.now() - started;
    assert.deepEqual(quick.structuredContent, { result: 2, logs: [], calls: 0 }, JSON.stringify(quick));
    assert.ok(took < 3_000, `client b waited ${took} ms`);
    void endless;
  } finally {
    await Promise.all([a.close(), b.close()]).catch(() => {});
    const code = await wb.stop();
    assert.equal(code, 0, wb.stderr());
  }
});
