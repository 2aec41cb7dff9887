/**
 * What a 2026-07-28 client can make the executable write or keep (issue 33), in raw lines: a huge
 * protocolVersion is echoed cut, a huge envelope is refused, and a retry for another tool or with
 * an array as an answer is refused without touching its parked call.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { startRaw } from "../helpers/raw-session.ts";
import { removeTempDirs } from "../helpers/workbench.ts";
import { fx } from "../helpers/toolbox.ts";

after(removeTempDirs);

const MB = 1_000_000;
const envelope = (version = "2026-07-28", capabilities: unknown = { elicitation: { form: {} }, sampling: {} }) => ({
  "io.modelcontextprotocol/protocolVersion": version,
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": capabilities,
});
const request = (id: number, method: string, params: Record<string, unknown> = {}, meta = envelope()) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } }) + "\n";
const CONFIG = { toolboxes: { asking: { description: "A 2025 server that asks", mcpServers: { old: fx("old", {}, { FIXTURE_CLIENT_FEATURES: "1" }) } } } };

test("era bounds: a 10 MB version is echoed in 64 characters, 10 MB capabilities and requestState are refused", async () => {
  const session = await startRaw(CONFIG, { initialize: false });
  try {
    await session.write(request(1, "server/discover"));
    await session.answer(1);
    await session.write(request(2, "tools/list", {}, envelope("9".repeat(10 * MB))));
    const refused = await session.answer(2, 30_000);
    assert.equal(refused.error.code, -32022);
    assert.equal(refused.error.data.requested, `${"9".repeat(61)}...`);
    assert.ok(JSON.stringify(refused).length < 400, `${JSON.stringify(refused).length} characters written`);
    await session.write(request(3, "tools/list", {}, envelope(undefined, { huge: "x".repeat(10 * MB) })));
    assert.deepEqual((await session.answer(3, 30_000)).error, {
      code: -32602,
      message: 'Invalid params: _meta["io.modelcontextprotocol/clientCapabilities"] is over the limit of 65536 bytes',
    });
    await session.write(request(4, "tools/call", { name: "open_toolbox", arguments: { toolbox_name: "asking" }, requestState: "s".repeat(10 * MB) }));
    assert.deepEqual((await session.answer(4, 30_000)).error, {
      code: -32602,
      message: "Invalid params: requestState is 10000000 characters, over the limit of 262144",
    });
  } finally {
    await session.close();
  }
});

test("era bounds: a retry with open_toolbox or with an array as the answer is refused; the right retry is answered once", async () => {
  const session = await startRaw(CONFIG, { initialize: false });
  const call = (id: number, extra: Record<string, unknown> = {}) =>
    request(id, "tools/call", { name: "use_tool", arguments: { tool: { toolbox: "asking", server: "old", name: "confirm" }, arguments: { what: "deploy" } }, ...extra });
  try {
    await session.write(request(1, "tools/call", { name: "open_toolbox", arguments: { toolbox_name: "asking" } }));
    await session.answer(1, 60_000);
    await session.write(call(2));
    const asked = (await session.answer(2)).result;
    const [key] = Object.keys(asked.inputRequests);
    const answers = { [key]: { action: "accept", content: { name: "Ada" } } };
    await session.write(request(3, "tools/call", { name: "open_toolbox", arguments: { toolbox_name: "asking" }, inputResponses: answers, requestState: asked.requestState }));
    const other = (await session.answer(3)).error;
    assert.equal(other.code, -32602);
    assert.match(other.message, /^Invalid params: requestState belongs to a call of "use_tool" \(\["asking","old","confirm"\]\), not of "open_toolbox"$/);
    await session.write(call(4, { inputResponses: { [key]: [answers[key]] }, requestState: asked.requestState }));
    assert.deepEqual((await session.answer(4)).error, { code: -32602, message: `Invalid params: inputResponses["${key}"] is an array: an answer is an object` });
    await session.write(call(5, { inputResponses: answers, requestState: asked.requestState }));
    assert.equal((await session.answer(5)).result.content[0].text, "deploy confirmed by Ada");
    assert.deepEqual([3, 4, 5].map((id) => session.replies.filter((reply) => reply.id === id).length), [1, 1, 1]);
  } finally {
    await session.close();
  }
});
