/**
 * A server's -32042 "URL elicitation required" through use_tool: a client that declared URL
 * elicitation gets the error as a direct client does (code, data with the URLs); any other client,
 * and `call`, gets use_tool's error text with the URL in it.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { Client, ElicitRequestSchema, ErrorCode, McpError, StdioClientTransport, UrlElicitationRequiredError } from "../helpers/sdk.ts";
import { workbenchEnv } from "../helpers/runtime.ts";
import { removeTempDirs, startWorkbench, tempDir, withWorkbench, writeConfig } from "../helpers/workbench.ts";
import { CALL_TIMEOUT_MS, errorText, fx, opened, openToolbox, useTool } from "../helpers/toolbox.ts";
import { runCli } from "../helpers/cli.ts";

after(removeTempDirs);

const SERVER = fx("A", {}, { FIXTURE_FAILURES: "1" });
const CONFIG = { toolboxes: { dev: { mcpServers: { fx: SERVER } } } };
const ELICITATIONS = [
  { mode: "url", elicitationId: "A-connect", url: "https://example.com/connect?account=1", message: "Connect your account" },
];
// The server's SDK puts "MCP error -32042: " in its message, and use_tool's text keeps what the server said.
const TEXT = "Error executing tool 'needs_url' in server 'fx' (toolbox 'dev'): MCP error -32042: This tool needs your account connected";

function urlClient(): Client {
  const client = new Client({ name: "url-client", version: "1.0.0" }, { capabilities: { elicitation: { url: {} } } });
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: "decline" }));
  return client;
}

/** What the call rejected with, as the SDK client gives it. */
async function rejection(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(() => undefined, (error: unknown) => error);
  assert.ok(error instanceof McpError, `expected an McpError, got ${String(error)}`);
  return error;
}

test("url required: a client that opens URLs gets the server's -32042 with its data, as a direct client does", async () => {
  const { command, args, env } = SERVER as { command: string; args: string[]; env: Record<string, string> };
  const direct = urlClient();
  await direct.connect(new StdioClientTransport({ command, args, env: workbenchEnv(env), stderr: "ignore" }));
  let directError: McpError;
  try {
    directError = await rejection(direct.callTool({ name: "needs_url", arguments: {} }, undefined, { timeout: CALL_TIMEOUT_MS }));
  } finally {
    await direct.close();
  }
  assert.ok(directError instanceof UrlElicitationRequiredError);
  assert.deepEqual(directError.data, { elicitations: ELICITATIONS });

  const session = await startWorkbench(CONFIG, {}, urlClient());
  try {
    opened(await openToolbox(session, "dev"));
    const error = await rejection(useTool(session, "dev", "fx", "needs_url", {}));
    assert.ok(error instanceof UrlElicitationRequiredError, String(error));
    assert.equal(error.code, ErrorCode.UrlElicitationRequired);
    assert.equal(error.message, `MCP error -32042: ${TEXT}`);
    assert.deepEqual(error.elicitations, ELICITATIONS);
    assert.deepEqual(error.data, directError.data);
  } finally {
    await session.close();
  }
});

test("url required: a client that cannot open URLs, and `call`, get the URL in use_tool's error text", async () => {
  const said = `${TEXT}; the user must open this URL, then call the tool again: https://example.com/connect?account=1 (Connect your account)`;
  await withWorkbench(CONFIG, async (session) => {
    opened(await openToolbox(session, "dev"));
    assert.equal(errorText(await useTool(session, "dev", "fx", "needs_url", {})), said);
  });
  const path = writeConfig(tempDir(), CONFIG);
  const result = await runCli(["call", "dev", "fx", "needs_url", "--config", path]);
  assert.equal(result.code, 1);
  assert.equal(result.stderr, `mcp-workbench: ${said}\n`);
});
