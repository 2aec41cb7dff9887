/**
 * The client's connection in either era, the first message deciding: the gate in front of a real
 * SDK Server over a StreamTransport, spoken to in JSON lines as a client would.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { CallToolRequestSchema, ListToolsRequestSchema, Server } from "../../../src/protocol/sdk.ts";
import { StreamTransport } from "../../../src/transport/stream-transport.ts";
import { UpstreamGate } from "../../../src/upstream/era/gate.ts";

// deno-lint-ignore no-explicit-any
type Message = Record<string, any>;

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "c", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
  "io.modelcontextprotocol/logLevel": "warning",
};

/** A gate with an SDK Server behind it (one tool, `echo`); `request` sends a line and waits for its answer. */
async function gated() {
  const input = new TransformStream<Uint8Array, Uint8Array>();
  const writer = input.writable.getWriter();
  const answers: Message[] = [];
  let buffered = "";
  const decoder = new TextDecoder();
  const output = new WritableStream<Uint8Array>({
    write(chunk) {
      buffered += decoder.decode(chunk);
      const lines = buffered.split("\n");
      buffered = lines.pop()!;
      for (const line of lines) if (line.trim() !== "") answers.push(JSON.parse(line));
    },
  });
  const events = { modern: 0, levels: [] as string[] };
  const gate = new UpstreamGate(new StreamTransport(input.readable, output), {
    capabilities: { tools: {}, resources: { subscribe: true, listChanged: true } },
    instructions: () => "Open a toolbox first",
    serverInfo: { name: "mcp-workbench", version: "9.9.9" },
    onModern: () => void events.modern++,
    onLogLevel: (level) => void events.levels.push(level),
  });
  const server = new Server({ name: "mcp-workbench", version: "9.9.9" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: "echo", inputSchema: { type: "object" as const } }] }));
  server.setRequestHandler(CallToolRequestSchema, (request) => ({ content: [{ type: "text" as const, text: String(request.params.arguments?.text) }] }));
  await server.connect(gate);
  let id = 0;
  const request = async (method: string, params: Record<string, unknown> = {}): Promise<Message> => {
    const sent = ++id;
    await writer.write(new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", id: sent, method, params }) + "\n"));
    for (let waited = 0; waited < 5_000; waited += 5) {
      const answer = answers.find((message) => message.id === sent);
      if (answer) return answer;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`no answer to ${method} in 5 s: ${JSON.stringify(answers)}`);
  };
  return { gate, request, events, close: () => server.close() };
}

test("gate: server/discover first makes the connection 2026-07-28 and is answered by the gate, cache fields and server info included", async () => {
  const { gate, request, events, close } = await gated();
  try {
    const { result } = await request("server/discover", { _meta: MODERN_META });
    assert.deepEqual(result, {
      resultType: "complete",
      supportedVersions: ["2026-07-28"],
      capabilities: { tools: {}, resources: { listChanged: true } },
      instructions: "Open a toolbox first",
      ttlMs: 0,
      cacheScope: "private",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "mcp-workbench", version: "9.9.9" } },
    });
    assert.equal(gate.modern, true);
    assert.equal(events.modern, 1);
    assert.deepEqual(gate.capabilities, { elicitation: { form: {} } });
    assert.deepEqual(events.levels, ["warning"]);
  } finally {
    await close();
  }
});

test("gate: a 2026-07-28 request that claims another version is refused with -32022, naming both", async () => {
  const { request, close } = await gated();
  try {
    await request("server/discover", { _meta: MODERN_META });
    const answer = await request("tools/list", { _meta: { ...MODERN_META, "io.modelcontextprotocol/protocolVersion": "2025-11-25" } });
    assert.deepEqual(answer.error, {
      code: -32022,
      message: 'Unsupported protocol version: "2025-11-25"',
      data: { supported: ["2026-07-28"], requested: "2025-11-25" },
    });
  } finally {
    await close();
  }
});

test("gate: a 2026-07-28 client's results carry resultType, and the cacheable ones ttlMs and cacheScope; a new log level is heard once", async () => {
  const { request, events, gate, close } = await gated();
  try {
    // A request carrying the envelope opens the 2026-07-28 connection too.
    const listed = await request("tools/list", { _meta: MODERN_META });
    assert.equal(gate.modern, true);
    assert.deepEqual(listed.result, { resultType: "complete", tools: [{ name: "echo", inputSchema: { type: "object" } }], ttlMs: 0, cacheScope: "private" });
    const called = await request("tools/call", { name: "echo", arguments: { text: "hi" }, _meta: { ...MODERN_META, "io.modelcontextprotocol/logLevel": "debug" } });
    assert.deepEqual(called.result, { resultType: "complete", content: [{ type: "text", text: "hi" }] });
    await request("tools/list", { _meta: { ...MODERN_META, "io.modelcontextprotocol/logLevel": "debug" } });
    assert.deepEqual(events.levels, ["warning", "debug"]);
  } finally {
    await close();
  }
});

test("gate: initialize first keeps 2025-11-25: results pass as the SDK gives them and server/discover is not ours to answer", async () => {
  const { request, events, gate, close } = await gated();
  try {
    const initialized = await request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } });
    assert.equal(initialized.result.protocolVersion, "2025-11-25");
    const listed = await request("tools/list", { _meta: MODERN_META });
    assert.deepEqual(listed.result, { tools: [{ name: "echo", inputSchema: { type: "object" } }] });
    assert.equal((await request("server/discover", { _meta: MODERN_META })).error?.code, -32601);
    assert.equal(gate.modern, false);
    assert.equal(events.modern, 0);
    assert.deepEqual(events.levels, []);
  } finally {
    await close();
  }
});
