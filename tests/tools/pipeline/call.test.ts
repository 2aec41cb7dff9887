/**
 * The send step alone, against a stand-in server: the result comes back and the session hears of
 * it; a server's failure is the text the client sees; a -32042 stays a JSON-RPC error for a client
 * that opens URLs, and names its URLs for any other. No server runs.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { McpError } from "../../helpers/sdk.ts";
import { send } from "../../../src/tools/pipeline/call.ts";
import type { Result, ToolId } from "../../../src/tools/pipeline/values.ts";
import type { CallSession } from "../../../src/tools/pipeline/step.ts";
import { CallCancel } from "../../../src/downstream/call-cancel.ts";
import { resolvedCall, serverOf, stubTarget } from "../../helpers/calls.ts";

const errorOf = (result: Result<unknown>) => result.ok ? "" : result.error;

function failing(error: Error, session: Partial<CallSession> = {}) {
  const { target } = stubTarget(serverOf(), () => {
    throw error;
  });
  return send(resolvedCall({ id: { toolbox: "dev", server: "a", name: "needs_url" }, target, session }));
}

test("send: the server's result comes back, and the session is told of it", async () => {
  const told: ToolId[] = [];
  const { target, sent } = stubTarget(serverOf(), (_, args) => ({ content: [{ type: "text", text: `a: ${args.text}` }] }));
  const signal = new AbortController().signal;
  const call = resolvedCall({ args: { text: "hi" }, target, session: { onToolResult: (id) => told.push(id) }, request: { id: 7, signal } });
  assert.deepEqual(await send(call), { ok: true, value: { content: [{ type: "text", text: "a: hi" }] } });
  assert.deepEqual(told, [call.id]);
  assert.equal(sent[0].options.relatedRequestId, 7);
  assert.equal(sent[0].options.signal, signal, "a request without the intake's cancellation gives its signal");
});

test("send: the intake's cancellation is watched as it is, without a signal", async () => {
  const { target, sent } = stubTarget(serverOf());
  const cancel = new CallCancel();
  await send(resolvedCall({ target, request: { cancel, signal: cancel.signal } }));
  assert.equal(sent[0].options.cancel, cancel);
  assert.equal(sent[0].options.signal, undefined);
});

test("send: a server's error is the text the client sees", async () => {
  const { target } = stubTarget(serverOf(), () => {
    throw new McpError(-32603, "a threw on purpose");
  });
  const result = await send(resolvedCall({ id: { toolbox: "dev", server: "a", name: "throw" }, target }));
  assert.equal(errorOf(result), "Error executing tool 'throw' in server 'a' (toolbox 'dev'): MCP error -32603: a threw on purpose");
});

test("send: a -32042 is kept for a client that opens URLs, else its URLs are in the text", async () => {
  const data = { elicitations: [{ mode: "url", url: "https://example.com/connect?account=1", message: "Connect your account", elicitationId: "e" }] };
  const error = () => new McpError(-32042, "URL elicitation required", data);
  const kept = await failing(error(), { clientOpensUrls: () => true });
  assert.equal(!kept.ok && kept.rpc?.code, -32042);
  const told = await failing(error());
  assert.equal(!told.ok && told.rpc, undefined);
  assert.match(errorOf(told), /the user must open this URL, then call the tool again: https:\/\/example\.com\/connect\?account=1 \(Connect your account\)$/);
});
