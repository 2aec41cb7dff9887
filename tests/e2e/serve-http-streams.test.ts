/**
 * `serve --http` in 2025-11-25 over raw HTTP, with no GET stream open: what a request hears before
 * its answer (progress, a server's elicitation during the call) comes on that request's own event
 * stream, and the client's answer to the elicitation (a POST of its own) reaches the call.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { startHttpWorkbench } from "../helpers/http-workbench.ts";
import { fx } from "../helpers/toolbox.ts";
import { removeTempDirs } from "../helpers/workbench.ts";

after(removeTempDirs);

type Message = { id?: unknown; method?: string; params?: Record<string, unknown>; result?: unknown };

/** The JSON-RPC messages of an event stream, as they come. */
async function* events(response: Response): AsyncGenerator<Message> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) !== -1) {
      const data = buffer.slice(0, end).split("\n").filter((line) => line.startsWith("data: ")).map((line) => line.slice(6)).join("\n");
      buffer = buffer.slice(end + 2);
      if (data) yield JSON.parse(data);
    }
  }
}

test("serve --http: progress and a server's question go on the request's own stream (no GET stream)", async () => {
  const wb = await startHttpWorkbench({ toolboxes: { dev: { description: "Dev tools", mcpServers: { a: fx("a", {}, { FIXTURE_CLIENT_FEATURES: "1" }) } } } });
  try {
    let session = "";
    const post = (message: unknown) =>
      fetch(wb.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(session && { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }),
        },
        body: JSON.stringify(message),
        // Bounded: a question that never comes on this stream must fail the test, not hang it.
        signal: AbortSignal.timeout(20_000),
      });
    const all = async (response: Response) => {
      const got: Message[] = [];
      for await (const message of events(response)) got.push(message);
      return got;
    };
    const init = await post({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: { elicitation: { form: {} } }, clientInfo: { name: "raw", version: "1" } },
    });
    session = init.headers.get("mcp-session-id")!;
    await all(init);
    assert.equal((await post({ jsonrpc: "2.0", method: "notifications/initialized" })).status, 202);
    const useTool = (id: number, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
      post({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "use_tool", arguments: { tool: { toolbox: "dev", server: "a", name }, arguments: args }, ...(meta && { _meta: meta }) } });
    await all(await post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "open_toolbox", arguments: { toolbox_name: "dev" } } }));

    const progress = await all(await useTool(2, "progress", { steps: 3, ms: 10 }, { progressToken: "p" }));
    assert.deepEqual(progress.map((m) => m.method ?? `result ${m.id}`), ["notifications/progress", "notifications/progress", "notifications/progress", "result 2"]);
    assert.ok(progress.slice(0, 3).every((m) => m.params?.progressToken === "p"));

    const seen: string[] = [];
    for await (const message of events(await useTool(3, "confirm", { what: "release" }))) {
      if (message.method === "elicitation/create") {
        seen.push("asked");
        const answered = await post({ jsonrpc: "2.0", id: message.id, result: { action: "accept", content: { name: "dave" } } });
        assert.equal(answered.status, 202);
      } else if (message.id === 3) {
        seen.push((message.result as { content: { text: string }[] }).content[0].text);
      }
    }
    assert.deepEqual(seen, ["asked", "release confirmed by dave"]);
  } finally {
    assert.equal(await wb.stop(), 0, wb.stderr());
  }
});
