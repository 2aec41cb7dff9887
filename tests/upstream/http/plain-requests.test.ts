/**
 * A 2025-11-25 session's lone plain request answered without the SDK's transport (issue 42): as
 * plain JSON when nothing comes before its answer, on an event stream when something does, and
 * every other request (and every refusal) as the SDK's transport answers it.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { platform } from "#platform";
import { validateConfig } from "../../../src/config/index.ts";
import { ServerPool } from "../../../src/toolboxes/pool.ts";
import { openSession } from "../../../src/upstream/session.ts";
import { httpEndpoint } from "../../../src/upstream/http/endpoint.ts";
import { authenticatorFor } from "../../../src/upstream/access/index.ts";
import { answerOf, endpointWith, INITIALIZE, post } from "../../helpers/http-endpoint.ts";
import { PlainRequests } from "../../../src/upstream/http/plain-requests.ts";
import type { JSONRPCMessage } from "../../../src/protocol/sdk.ts";
import { eventually, fx, requestLog } from "../../helpers/toolbox.ts";
import { removeTempDirs } from "../../helpers/workbench.ts";

after(removeTempDirs);

async function session(endpoint: ReturnType<typeof endpointWith>): Promise<Record<string, string>> {
  const response = await endpoint.handle(post(INITIALIZE));
  await response.text();
  return { "mcp-session-id": response.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-11-25" };
}

test("plain requests: a session's lone request is answered as plain JSON; one with _meta or in a batch as the SDK answers it", async () => {
  const endpoint = endpointWith({});
  try {
    const headers = await session(endpoint);
    const ping = await endpoint.handle(post({ jsonrpc: "2.0", id: 2, method: "ping" }, headers));
    assert.equal(ping.status, 200);
    assert.equal(ping.headers.get("content-type"), "application/json");
    assert.equal(ping.headers.get("mcp-session-id"), headers["mcp-session-id"]);
    assert.deepEqual(await ping.json(), { jsonrpc: "2.0", id: 2, result: {} });
    const call = await endpoint.handle(post({ jsonrpc: "2.0", id: "c", method: "tools/call", params: { name: "open_toolbox", arguments: { toolbox_name: "dev" } } }, headers));
    assert.equal(call.headers.get("content-type"), "application/json");
    assert.equal((await call.json()).id, "c");
    const meta = await endpoint.handle(post({ jsonrpc: "2.0", id: 3, method: "ping", params: { _meta: { progressToken: 1 } } }, headers));
    assert.equal(meta.headers.get("content-type"), "text/event-stream", "the SDK's way");
    assert.match(await meta.text(), /"id":3/);
    const batch = await endpoint.handle(post([{ jsonrpc: "2.0", id: 4, method: "ping" }], headers));
    assert.equal(batch.headers.get("content-type"), "text/event-stream", "the SDK's way");
    assert.match(await batch.text(), /"id":4/);
  } finally {
    await endpoint.close();
  }
});

test("plain requests: what the SDK's transport refuses is still refused in its words", async () => {
  const endpoint = endpointWith({});
  try {
    const headers = await session(endpoint);
    const cases: [Record<string, unknown>, Record<string, string>, number, RegExp][] = [
      [{ jsonrpc: "2.0", id: 5, method: "ping" }, { accept: "application/json" }, 406, /^Not Acceptable: Client must accept both/],
      [{ jsonrpc: "2.0", id: 6, method: "ping" }, { "mcp-protocol-version": "1999-01-01" }, 400, /^Bad Request: Unsupported protocol version: 1999-01-01/],
      [{ jsonrpc: "2.0", id: 7, method: "ping", extra: 1 }, {}, 400, /^Parse error/],
      [{ jsonrpc: "2.0", id: 1.5, method: "ping" }, {}, 400, /^Parse error/],
      [{ jsonrpc: "2.0", id: 8, method: "ping", params: [] }, {}, 400, /^Parse error/],
      [INITIALIZE, {}, 400, /^Invalid Request: Server already initialized$/],
    ];
    for (const [body, more, status, message] of cases) {
      const response = await endpoint.handle(post(body, { ...headers, ...more }));
      assert.equal(response.status, status, JSON.stringify(body));
      assert.match((await response.json()).error.message, message);
    }
  } finally {
    await endpoint.close();
  }
});

test("plain requests: a short answer is not in flight once handed over (two unread answers with one in flight allowed)", async () => {
  const endpoint = endpointWith({ maxInFlightPerClient: 1 });
  try {
    const headers = await session(endpoint);
    const first = await endpoint.handle(post({ jsonrpc: "2.0", id: 2, method: "ping" }, headers));
    const second = await endpoint.handle(post({ jsonrpc: "2.0", id: 3, method: "ping" }, headers));
    assert.equal(second.status, 200, "the first answer, unread, holds no slot");
    assert.deepEqual([(await first.json()).id, (await second.json()).id], [2, 3]);
  } finally {
    await endpoint.close();
  }
});

test("plain requests: a session waiting for a plain answer is in use: the idle time does not end it mid-call", async () => {
  const slow = validateConfig({ toolboxes: { dev: { mcpServers: { a: fx("a") } } } });
  const pool = new ServerPool(slow, { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {} });
  const endpoint = httpEndpoint({
    authenticate: authenticatorFor(undefined, { toolboxes: [] }),
    open: (transport, client, onClose) => openSession(transport, { config: slow, configPath: "http.json", pool, client, stateless: true, onClose, onError: () => {} }),
    idleMs: 100,
  });
  try {
    const headers = await session(endpoint);
    const call = (id: number, name: string, args: Record<string, unknown>) =>
      endpoint.handle(post({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "use_tool", arguments: { tool: { toolbox: "dev", server: "a", name }, arguments: args } } }, headers));
    const open = await endpoint.handle(post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "open_toolbox", arguments: { toolbox_name: "dev" } } }, headers));
    // Plain JSON when the answer comes first, else on a stream (a server's start on a loaded machine): either is right.
    assert.equal((await answerOf(open)).result.isError, undefined);
    assert.equal((await answerOf(await call(2, "echo", { text: "warm" }))).result.content[0].text, "a: warm");
    const answer = await answerOf(await call(3, "sleep", { ms: 400 }));
    assert.equal(answer.result?.isError, undefined, JSON.stringify(answer));
    assert.equal(endpoint.sessions, 1);
  } finally {
    await endpoint.close();
    await pool.closeAll();
  }
});

test("plain requests: the answer goes by its id, what comes before it by the request it names; the session's end answers the rest", async () => {
  const delivered: JSONRPCMessage[] = [];
  const plain = new PlainRequests((message) => delivered.push(message));
  const request = (id: number) => post({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "x" } });
  const one = plain.answer(request(1), { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x" } }, "s")!;
  const two = plain.answer(request(2), { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "x" } }, "s")!;
  assert.equal(plain.answer(request(2), { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "x" } }, "s"), undefined, "an id in flight is the SDK's");
  assert.equal(delivered.length, 2);
  const notice = { jsonrpc: "2.0" as const, method: "notifications/message", params: { level: "info", data: "x" } };
  assert.equal(plain.took(notice, 9), false, "a request not ours");
  assert.equal(plain.took(notice, 2), true);
  assert.equal(plain.took({ jsonrpc: "2.0", id: 1, result: {} }, undefined), true);
  assert.equal(plain.took({ jsonrpc: "2.0", id: 1, result: {} }, undefined), false, "answered once");
  assert.deepEqual(await (await one).json(), { jsonrpc: "2.0", id: 1, result: {} });
  plain.close();
  const streamed = await two;
  assert.equal(streamed.headers.get("content-type"), "text/event-stream");
  const text = await streamed.text();
  assert.match(text, /notifications\/message/);
  assert.match(text, /"id":2,"error":\{"code":-32000,"message":"The session ended before the answer: send the request again in a new session"\}/);
  assert.equal(plain.answer(request(3), { jsonrpc: "2.0", id: 3, method: "ping" }, "s"), undefined, "nothing after the end");
});

test("plain requests: an id past the safe integers is refused as the SDK's transport refuses it (400 Parse error)", async () => {
  const endpoint = endpointWith({});
  try {
    const headers = await session(endpoint);
    // 2^53 + 1 as the client wrote it: JSON.parse makes it 2^53, an integer the SDK's schema refuses.
    const request = new Request("http://127.0.0.1:1/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}',
    });
    const response = await endpoint.handle(request);
    const reader = response.body!.getReader();
    let text = "";
    const deadline = Date.now() + 3_000;
    for (;;) {
      const next = await Promise.race([reader.read(), new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), Math.max(1, deadline - Date.now())))]);
      if (next === undefined || next.done) break;
      text += new TextDecoder().decode(next.value);
    }
    await reader.cancel().catch(() => {});
    assert.equal(response.status, 400, `the SDK's transport answers 400; the plain path answered ${response.status} ${response.headers.get("content-type")}, ${JSON.stringify(text)} within 3 s`);
    assert.match(JSON.parse(text).error.message, /^Parse error/);
  } finally {
    await endpoint.close();
  }
});

/** Two calls cancelled in turn with two requests in flight allowed: the second fits only if the first gave its slot back. */
async function cancelledCallsFreeTheirSlots(meta?: Record<string, unknown>): Promise<void> {
  const requests = requestLog();
  const config = validateConfig({ toolboxes: { dev: { mcpServers: { a: fx("a", {}, requests.env) } } } });
  const pool = new ServerPool(config, { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {} });
  const endpoint = httpEndpoint({
    authenticate: authenticatorFor(undefined, { toolboxes: [] }),
    open: (transport, client, onClose) => openSession(transport, { config, configPath: "http.json", pool, client, stateless: true, onClose, onError: () => {} }),
    maxInFlightPerClient: 2,
  });
  const held: Response[] = [];
  try {
    const init = await endpoint.handle(post(INITIALIZE));
    await init.text();
    const headers = { "mcp-session-id": init.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-11-25" };
    await (await endpoint.handle(post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers))).text();
    const call = (id: number) =>
      endpoint.handle(post({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "use_tool", arguments: { tool: { toolbox: "dev", server: "a", name: "sleep" }, arguments: { ms: 20_000 } }, ...(meta && { _meta: meta }) } }, headers));
    await (await endpoint.handle(post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "open_toolbox", arguments: { toolbox_name: "dev" } } }, headers))).text();
    for (const id of [10, 11]) {
      const before = requests.count("tools/call");
      const pending = call(id);
      // Cancelled once the server has the call, not after a guessed 100 ms.
      await eventually(`call ${id} on the server`, () => requests.count("tools/call"), (count) => count > before);
      const cancel = await endpoint.handle(post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "stop" } }, headers));
      // Two slots: call 11 and its cancel fit only if cancelled call 10 gave its slot back.
      assert.equal(cancel.status, 202, `cancelling call ${id}: ${cancel.status} ${await cancel.clone().text()} (call 10, cancelled, still holds its slot)`);
      // The client keeps the response as the SDK's client does: it reads it until an answer.
      held.push(await pending);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    for (const response of held) await response.body?.cancel().catch(() => {});
    await endpoint.close();
    await pool.closeAll();
  }
}

test("plain requests: a call cancelled with notifications/cancelled does not keep a request in flight", () => cancelledCallsFreeTheirSlots());

test("plain requests: nor does one the SDK's transport answers (a request with _meta): its stream is closed", () => cancelledCallsFreeTheirSlots({ note: "not plain" }));

test("plain requests: a cancelled request's reply ends unanswered, and its id is free: a new request with it gets its own answer", async () => {
  const plain = new PlainRequests(() => {});
  const request = () => post({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "x" } });
  const body = { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "x" } };
  const first = plain.answer(request(), body, "s");
  assert.notEqual(first, undefined);
  // notifications/cancelled for id 5 (the session's transport passes it on): no answer is sent for it.
  plain.cancelled(5);
  const ended = await first!;
  assert.equal(ended.headers.get("content-type"), "text/event-stream");
  assert.equal(await ended.text(), "", "ended with nothing in it");
  // The client sends a new request with id 5 (the intake allows a cancelled id again): it is answered.
  const second = plain.answer(request(), body, "s");
  assert.notEqual(second, undefined, "the id is free again");
  assert.equal(plain.took({ jsonrpc: "2.0", id: 5, result: { n: 2 } }, undefined), true);
  assert.deepEqual(await (await second!).json(), { jsonrpc: "2.0", id: 5, result: { n: 2 } });
  plain.close();
});
