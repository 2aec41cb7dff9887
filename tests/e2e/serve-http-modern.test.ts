/**
 * `serve --http` in 2026-07-28 over raw HTTP: subscriptions/listen is a long-lived event stream
 * whose notifications carry the client's own id; closing a tools/call's stream cancels the call
 * on the server; two requests with the same id at once each get their own answer; a request on a
 * second replica, which never saw the client, goes on (use_tool opens the toolbox there); a call
 * whose client leaves before the response's headers (while the answer may still be plain JSON,
 * pending-reply.ts) is cancelled all the same.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { type HttpWorkbench, startHttpWorkbench } from "../helpers/http-workbench.ts";
import { eventually, fx, requestLog } from "../helpers/toolbox.ts";
import { removeTempDirs } from "../helpers/workbench.ts";

after(removeTempDirs);

const CONFIG = { toolboxes: { dev: { description: "Dev tools", mcpServers: { a: fx("a") } } } };
const ENVELOPE = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };

function post(wb: HttpWorkbench, id: string | number, method: string, params: Record<string, unknown>, signal = AbortSignal.timeout(20_000)) {
  return fetch(wb.url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": method },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: { ...params._meta as object, ...ENVELOPE } } }),
    signal,
  });
}

const useTool = (name: string, args: Record<string, unknown>) => ({ name: "use_tool", arguments: { tool: { toolbox: "dev", server: "a", name }, arguments: args } });

/** The answer in an event stream or JSON body. */
async function answerOf(response: Response): Promise<{ id: unknown; result: { content: { text: string }[] } }> {
  const text = await response.text();
  if (!response.headers.get("content-type")?.includes("text/event-stream")) return JSON.parse(text);
  const data = text.split("\n").filter((line) => line.startsWith("data: ")).map((line) => JSON.parse(line.slice(6)));
  return data.find((message) => "result" in message || "error" in message);
}

test("serve --http 2026: a listen stays open with the client's id; closing a call's stream cancels it; ids are the client's own", async () => {
  const wb = await startHttpWorkbench(CONFIG);
  try {
    const listening = new AbortController();
    const listen = await post(wb, "L1", "subscriptions/listen", { notifications: { toolsListChanged: true } }, listening.signal);
    assert.equal(listen.status, 200);
    assert.match(listen.headers.get("content-type") ?? "", /text\/event-stream/);
    const reader = listen.body!.pipeThrough(new TextDecoderStream()).getReader();
    let heard = "";
    while (!heard.includes("\n\n")) heard += (await reader.read()).value ?? "";
    const acknowledged = JSON.parse(heard.split("\n").find((line) => line.startsWith("data: "))!.slice(6));
    assert.equal(acknowledged.method, "notifications/subscriptions/acknowledged");
    assert.equal(acknowledged.params._meta["io.modelcontextprotocol/subscriptionId"], "L1");
    // Still open: nothing ends it but the client.
    const ended = (async () => {
      for (;;) if ((await reader.read()).done) return "ended";
    })();
    const more = await Promise.race([ended, new Promise((resolve) => setTimeout(() => resolve("open"), 1_500))]);
    assert.equal(more, "open");
    listening.abort();
    await ended.catch(() => {});

    // Two requests with the same id at once: each answer goes to its own request.
    const [one, two] = await Promise.all([
      post(wb, 7, "tools/call", useTool("echo", { text: "one" })).then(answerOf),
      post(wb, 7, "tools/call", useTool("echo", { text: "two" })).then(answerOf),
    ]);
    assert.deepEqual([one.id, one.result.content[0].text, two.id, two.result.content[0].text], [7, "a: one", 7, "a: two"]);

    const calling = new AbortController();
    const withToken = { ...useTool("sleep", { ms: 10_000 }), _meta: { progressToken: "s" } };
    const sleeping = await post(wb, "s", "tools/call", withToken, calling.signal);
    assert.equal(sleeping.status, 200);
    // Its stream is closed once the server has the call (the sleep's first progress), not after a guessed time.
    const events = sleeping.body!.pipeThrough(new TextDecoderStream()).getReader();
    for (let seen = ""; !seen.includes("notifications/progress");) {
      const { value, done } = await events.read();
      assert.equal(done, false, `the call's stream ended before its progress: ${seen}`);
      seen += value;
    }
    calling.abort();
    let cancelled = "0";
    const deadline = Date.now() + 10_000;
    while (cancelled === "0" && Date.now() < deadline) {
      cancelled = (await answerOf(await post(wb, "c", "tools/call", useTool("cancellations", {})))).result.content[0].text;
      if (cancelled === "0") await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(cancelled, "1");
  } finally {
    assert.equal(await wb.stop(), 0, wb.stderr());
  }
});

test("serve --http 2026: a request on a replica that never saw the client goes on", async () => {
  const [first, second] = await Promise.all([startHttpWorkbench(CONFIG), startHttpWorkbench(CONFIG)]);
  try {
    await answerOf(await post(first, 1, "tools/call", { name: "open_toolbox", arguments: { toolbox_name: "dev" } }));
    assert.equal((await answerOf(await post(first, 2, "tools/call", useTool("echo", { text: "here" })))).result.content[0].text, "a: here");
    assert.equal((await answerOf(await post(second, 3, "tools/call", useTool("echo", { text: "there" })))).result.content[0].text, "a: there");
  } finally {
    assert.equal(await first.stop(), 0, first.stderr());
    assert.equal(await second.stop(), 0, second.stderr());
  }
});

test("serve --http 2026: an open listen does not hold the stop (no grace spent on it)", async () => {
  // The control, in the same run: the same stop with no listen open.
  const [wb, control] = await Promise.all([startHttpWorkbench(CONFIG), startHttpWorkbench(CONFIG)]);
  const listening = new AbortController();
  const listen = await post(wb, "L", "subscriptions/listen", { notifications: { toolsListChanged: true } }, listening.signal);
  assert.equal(listen.status, 200);
  const stopping = (workbench: HttpWorkbench) => async () => assert.equal(await workbench.stop(), 0, workbench.stderr());
  const alone = await timed(stopping(control));
  const took = await timed(stopping(wb));
  listening.abort();
  await listen.body?.cancel().catch(() => {});
  // A stop that waited for the listen would say it cut a request off after the grace (5 s), and
  // take that much longer than the control: half the grace tells them apart on any machine.
  assert.doesNotMatch(wb.stderr(), /still in flight after the grace/);
  assert.ok(took < alone + 2_500, `the stop took ${took} ms, ${alone} ms without a listen:\n${wb.stderr()}`);
});

async function timed(run: () => Promise<void>): Promise<number> {
  const started = Date.now();
  await run();
  return Date.now() - started;
}

async function cancellations(wb: HttpWorkbench): Promise<string> {
  const response = await post(wb, "c", "tools/call", useTool("cancellations", {}));
  return (await answerOf(response)).result.content[0].text;
}

test("serve --http 2026: a call whose client leaves before the headers is still cancelled within 5 s", async () => {
  const requests = requestLog();
  const calls = () => requests.count("tools/call");
  const wb = await startHttpWorkbench({ toolboxes: { dev: { description: "Dev tools", mcpServers: { a: fx("a", {}, requests.env) } } } });
  try {
    // Warm the hub and the server (so the sleep starts at once).
    assert.equal(await cancellations(wb), "0");
    const before = calls();
    const calling = new AbortController();
    const sleeping = post(wb, "s", "tools/call", useTool("sleep", { ms: 20_000 }), calling.signal).catch(() => "aborted");
    // The client leaves once the server has the call (its request log says so), not after a guessed
    // time: still before the headers, which a call without progress gets only after UPGRADE_MS.
    await eventually("the sleep on the server", calls, (count) => count > before);
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
