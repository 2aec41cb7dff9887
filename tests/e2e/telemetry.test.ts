/**
 * Telemetry wired (issue 50), against the workbench as a process over stdio and over
 * `serve --http`, with an OTLP receiver in the test and a server behind that reports the `_meta`
 * it got: a SERVER span per client request under the client's `traceparent`, a CLIENT span per
 * downstream call under it, its context in the call's `_meta`, a run_code script as one tree, the
 * audit log's trace and span ids, the histograms, everything sent when the workbench exits (the
 * batch delay is an hour: only the exit's flush sends), and nothing at all when off.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import process from "node:process";
import { Client, type CallToolResult } from "../helpers/sdk.ts";
import { exited, removeTempDirs, startWorkbench, tempDir, textOf } from "../helpers/workbench.ts";
import { startHttpWorkbench } from "../helpers/http-workbench.ts";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { fixtureServer } from "../helpers/runtime.ts";
import { startHttpFixture } from "../helpers/http-fixture.ts";
import { createHash } from "node:crypto";
import { startOtlpReceiver } from "../helpers/otlp-receiver.ts";
import type { ReceivedSpan } from "../helpers/otlp-decode.ts";

after(removeTempDirs);

const CLIENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN = "00f067aa0ba902b7";
const CLIENT_META = { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`, tracestate: "vendor=x" };
/** The HTTP request's own trace context (a proxy's, say): a link of the SERVER span, never its parent. */
const HTTP_TRACE = "0af7651916cd43dd8448eb211c80319c";
const HTTP_SPAN = "b7ad6b7169203331";
const HTTP_HEADERS = { traceparent: `00-${HTTP_TRACE}-${HTTP_SPAN}-01`, tracestate: "proxy=1" };
const INTERNAL = 1;
const SERVER = 2;
const CLIENT = 3;

function configOf(auditLog?: string) {
  return {
    ...(auditLog && { auditLog }),
    codeMode: { timeoutMs: 10_000 },
    toolboxes: { dev: { mcpServers: { m: fixtureServer("meta-server.ts") } } },
  };
}

/** Only the exit's flush sends spans and histograms (an hour's delay): a test that sees them saw it. */
function otelEnv(url: string, protocol = "http/protobuf"): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: url,
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_BSP_SCHEDULE_DELAY: "3600000",
    OTEL_METRIC_EXPORT_INTERVAL: "3600000",
  };
}

/** Opens the toolbox, then calls the server's `meta` through use_tool with the client's `_meta`. */
async function useMeta(client: Client, meta?: Record<string, string>): Promise<CallToolResult> {
  await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } });
  return await client.callTool({
    name: "use_tool",
    arguments: { tool: { toolbox: "dev", server: "m", name: "meta" }, arguments: {} },
    ...(meta && { _meta: meta }),
  }) as CallToolResult;
}

const named = (spans: ReceivedSpan[], name: string) => spans.filter((span) => span.name === name);
const linksOf = (span: ReceivedSpan) => span.links.map(({ traceId, spanId, traceState }) => ({ traceId, spanId, traceState }));

/** The trace as an indented tree, each span under its parent (for the note, and to compare whole). */
function tree(spans: ReceivedSpan[], parent?: string, depth = 0): string[] {
  const ids = new Set(spans.map((span) => span.spanId));
  const level = spans.filter((span) => (depth === 0 ? !ids.has(span.parentSpanId ?? "") : span.parentSpanId === parent));
  const kind = (span: ReceivedSpan) => (span.kind === SERVER ? "SERVER" : span.kind === CLIENT ? "CLIENT" : "INTERNAL");
  return level.flatMap((span) => [`${"  ".repeat(depth)}${kind(span)} ${span.name}`, ...tree(spans, span.spanId, depth + 1)]);
}

function assertUseToolTrace(spans: ReceivedSpan[], transport: string): { server: ReceivedSpan; client: ReceivedSpan } {
  const [server] = named(spans, "tools/call use_tool");
  const [client] = named(spans, "tools/call meta");
  assert.ok(server && client, `spans: ${spans.map((span) => span.name).join(", ")}`);
  assert.equal(server.kind, SERVER);
  assert.equal(server.traceId, CLIENT_TRACE);
  assert.equal(server.parentSpanId, CLIENT_SPAN);
  assert.equal(server.traceState, "vendor=x");
  assert.equal(server.attributes["gen_ai.tool.name"], "use_tool");
  assert.equal(server.attributes["network.transport"], transport);
  assert.equal(server.attributes["mcp.protocol.version"], "2025-11-25");
  assert.equal(client.kind, CLIENT);
  assert.equal(client.traceId, CLIENT_TRACE);
  assert.equal(client.parentSpanId, server.spanId);
  assert.equal(client.attributes["mcp_workbench.toolbox"], "dev");
  assert.equal(client.attributes["mcp_workbench.server"], "m");
  assert.equal(client.attributes["network.transport"], "pipe");
  return { server, client };
}

test("telemetry over stdio: use_tool is a SERVER span under the client's traceparent, its call a CLIENT span whose context the server gets; flushed when stdin closes", async () => {
  const receiver = await startOtlpReceiver();
  const audit = `${tempDir()}/audit.jsonl`;
  const session = await startWorkbench(configOf(audit), otelEnv(receiver.url));
  let got: Record<string, unknown>;
  try {
    got = JSON.parse(textOf(await useMeta(session.client, CLIENT_META)));
    const failed = await session.client.callTool({ name: "use_tool", arguments: { tool: { toolbox: "dev", server: "m", name: "fail" } } });
    assert.equal(failed.isError, true);
    assert.deepEqual(receiver.spans, [], "nothing is sent before the batch delay or the exit");
    // Said once at the start, so that on-but-nothing-arrives is not taken for off.
    const said = `Telemetry: traces to ${receiver.url}/v1/traces (http/protobuf), metrics to ${receiver.url}/v1/metrics (http/protobuf)`;
    assert.ok(session.stderr().includes(said), session.stderr());
  } finally {
    await session.close();
  }
  await receiver.waitFor(() => receiver.spans.some((span) => span.name === "tools/call meta"));
  await receiver.waitFor(() => receiver.histograms.length >= 2);
  await receiver.close();
  assert.deepEqual(receiver.problems, []);
  const { client } = assertUseToolTrace(receiver.spans, "pipe");
  assert.equal(got.traceparent, `00-${CLIENT_TRACE}-${client.spanId}-01`);
  assert.equal(got.tracestate, "vendor=x");
  assert.equal(named(receiver.spans, "initialize").filter((span) => span.kind === SERVER).length, 1, "initialize has its span");
  // A tool's result passes unparsed: its isError is read from the server's bytes.
  assert.equal(named(receiver.spans, "tools/call fail")[0]?.attributes["error.type"], "tool_error");
  assert.equal(named(receiver.spans, "tools/call meta")[0]?.attributes["error.type"], undefined);
  assert.deepEqual(receiver.histograms.map((histogram) => histogram.name).sort(), ["mcp.client.operation.duration", "mcp.server.operation.duration"]);
  const [line] = readFileSync(audit, "utf8").trim().split("\n").map((text) => JSON.parse(text));
  assert.equal(line.trace_id, CLIENT_TRACE);
  assert.equal(line.span_id, client.spanId);
});

test("telemetry over stdio: OTEL_TRACES_SAMPLER=traceidratio at 0 drops even the client's sampled trace: no span sent, flag 00 passed on, every request measured", async () => {
  const receiver = await startOtlpReceiver();
  const env = { ...otelEnv(receiver.url), OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0" };
  const session = await startWorkbench(configOf(), env);
  let got: Record<string, unknown>;
  try {
    got = JSON.parse(textOf(await useMeta(session.client, CLIENT_META)));
  } finally {
    await session.close();
  }
  await receiver.waitFor(() => receiver.histograms.length >= 2);
  await receiver.close();
  assert.match(String(got.traceparent), new RegExp(`^00-${CLIENT_TRACE}-[0-9a-f]{16}-00$`));
  assert.deepEqual(receiver.spans, []);
  assert.deepEqual(receiver.problems, []);
});

test("telemetry over stdio: a toolbox's opening and its server's start are INTERNAL spans of open_toolbox, the server's initialize and listings CLIENT spans under them, each listing's context in its _meta", async () => {
  const receiver = await startOtlpReceiver();
  const session = await startWorkbench(configOf(), otelEnv(receiver.url));
  let listed: Record<string, { traceparent?: string } | null>;
  try {
    await session.client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" }, _meta: CLIENT_META });
    const result = await session.client.callTool({ name: "use_tool", arguments: { tool: { toolbox: "dev", server: "m", name: "listed" } } });
    listed = JSON.parse(textOf(result as CallToolResult));
  } finally {
    await session.close();
  }
  await receiver.waitFor(() => named(receiver.spans, "tools/call listed").length === 1);
  await receiver.close();
  const trace = receiver.spans.filter((span) => span.traceId === CLIENT_TRACE);
  // The listings go at once, in any order: compared sorted.
  const [head, ...listings] = tree(trace).join("\n").split("\n      ");
  assert.deepEqual(head.split("\n"), [
    "SERVER tools/call open_toolbox",
    "  INTERNAL mcp_workbench.toolbox.open",
    "    INTERNAL mcp_workbench.server.start",
  ], tree(trace).join("\n"));
  assert.deepEqual(listings.sort(), ["CLIENT initialize", "CLIENT prompts/list", "CLIENT resources/list", "CLIENT resources/templates/list", "CLIENT tools/list"]);
  const [start] = named(trace, "mcp_workbench.server.start");
  assert.equal(start.kind, INTERNAL);
  assert.equal(start.attributes["mcp_workbench.toolbox"], "dev");
  assert.equal(start.attributes["mcp_workbench.server"], "m");
  for (const method of ["tools/list", "prompts/list", "resources/list"]) {
    const [span] = trace.filter((one) => one.name === method && one.kind === CLIENT);
    assert.equal(span.attributes["mcp_workbench.server"], "m", method);
    assert.equal(listed[method]?.traceparent, `00-${CLIENT_TRACE}-${span.spanId}-01`, method);
  }
  // The fixture has no resources/templates/list: its span says so.
  assert.ok(trace.find((one) => one.name === "resources/templates/list")!.attributes["error.type"], "the failed listing's error.type");
});

test("telemetry over stdio: read_skill's read of a skill file is a CLIENT span of use_tool's SERVER span, in the client's trace", async () => {
  const receiver = await startOtlpReceiver();
  const config = { toolboxes: { dev: { mcpServers: { sk: fixtureServer("skills-server.ts") } } } };
  const session = await startWorkbench(config, otelEnv(receiver.url));
  try {
    await session.client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } });
    const read = await session.client.callTool({
      name: "use_tool",
      arguments: { tool: { toolbox: "dev", server: "workbench", name: "read_skill" }, arguments: { uri: "skill://dev/sk/refunds/SKILL.md" } },
      _meta: CLIENT_META,
    }) as CallToolResult;
    assert.notEqual(read.isError, true, textOf(read));
  } finally {
    await session.close();
  }
  await receiver.waitFor(() => receiver.spans.some((span) => span.name === "tools/call use_tool"));
  await receiver.close();
  const trace = receiver.spans.filter((span) => span.traceId === CLIENT_TRACE);
  assert.deepEqual(tree(trace), ["SERVER tools/call use_tool", "  CLIENT resources/read"], tree(receiver.spans).join("\n"));
  // The server's own URI, as the request to it named it.
  assert.equal(trace.find((span) => span.kind === CLIENT)!.attributes["mcp.resource.uri"], "skill://refunds/SKILL.md");
});

test("telemetry over stdio: a server search_tools lists in the background is a trace of its own, its start the root, its requests under it", async () => {
  const receiver = await startOtlpReceiver();
  const session = await startWorkbench({ ...configOf(), toolSearch: true }, { ...otelEnv(receiver.url), WORKBENCH_CACHE_DIR: `${tempDir()}/cache` });
  try {
    const search = async () => textOf(await session.client.callTool({ name: "search_tools", arguments: { query: "answers with meta" }, _meta: CLIENT_META }) as CallToolResult);
    // The first answers at once, naming what it lists in the background; a later one finds its tools.
    for (let tries = 0; tries < 100 && !/best first/.test(await search()); tries++) await new Promise((resolve) => setTimeout(resolve, 100));
  } finally {
    await session.close();
  }
  await receiver.waitFor(() => named(receiver.spans, "mcp_workbench.server.start").length === 1);
  await receiver.close();
  const [start] = named(receiver.spans, "mcp_workbench.server.start");
  assert.equal(start.parentSpanId ?? "", "", "a root: the search that asked for it was answered before it started");
  assert.notEqual(start.traceId, CLIENT_TRACE);
  const trace = receiver.spans.filter((span) => span.traceId === start.traceId);
  assert.deepEqual(trace.filter((span) => span.parentSpanId === start.spanId).map((span) => span.name).sort(), [
    "initialize",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "tools/list",
  ]);
});

test("telemetry over stdio: a run_code script's three calls are one tree under its SERVER span; flushed on SIGINT", async () => {
  const receiver = await startOtlpReceiver();
  const session = await startWorkbench(configOf(), otelEnv(receiver.url, "http/json"));
  try {
    const script = "const a = await tools.m.meta({ n: 1 }); const b = await tools.m.meta({ n: 2 }); " +
      "const c = await tools.m.meta({ n: 3 }); return [a, b, c];";
    await session.client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } });
    const result = await session.client.callTool({ name: "run_code", arguments: { toolbox: "dev", code: script } }) as CallToolResult;
    assert.equal(result.isError, undefined, textOf(result));
    const metas = (result.structuredContent as { result: Record<string, string>[] }).result;
    process.kill(session.pid, "SIGINT");
    await exited(session.pid, 10_000);
    await receiver.waitFor(() => named(receiver.spans, "tools/call meta").length === 3);
    const [script_] = named(receiver.spans, "tools/call run_code");
    const inner = named(receiver.spans, "tools/call meta");
    assert.ok(script_);
    assert.deepEqual(inner.map((span) => [span.traceId, span.parentSpanId]), inner.map(() => [script_.traceId, script_.spanId]));
    assert.deepEqual(metas.map((meta) => meta.traceparent).sort(), inner.map((span) => `00-${script_.traceId}-${span.spanId}-01`).sort());
    const trace = receiver.spans.filter((span) => span.traceId === script_.traceId);
    // run_code opens its toolbox each time (open already here: its span has no server start under it).
    assert.deepEqual(tree(trace, undefined), [
      "SERVER tools/call run_code",
      "  INTERNAL mcp_workbench.toolbox.open",
      "  CLIENT tools/call meta",
      "  CLIENT tools/call meta",
      "  CLIENT tools/call meta",
    ]);
    process.stderr.write(`# run_code trace:\n${tree(trace, undefined).map((line) => `#   ${line}`).join("\n")}\n`);
  } finally {
    await session.close().catch(() => {});
    await receiver.close();
  }
});

test("telemetry over stdio: prompts/get and resources/read are SERVER spans, each with a CLIENT span whose context the server gets", async () => {
  const receiver = await startOtlpReceiver();
  const session = await startWorkbench(configOf(), otelEnv(receiver.url));
  let prompt: Record<string, string>;
  let resource: Record<string, string>;
  try {
    await session.client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } });
    const got = await session.client.getPrompt({ name: "dev__m__meta_prompt", _meta: CLIENT_META });
    prompt = JSON.parse((got.messages[0]!.content as { text: string }).text);
    const read = await session.client.readResource({ uri: "meta://here", _meta: CLIENT_META });
    resource = JSON.parse((read.contents[0] as { text: string }).text);
  } finally {
    await session.close();
  }
  const forwarded = (span: ReceivedSpan) => span.kind === CLIENT && (span.name.startsWith("prompts/get") || span.name === "resources/read");
  await receiver.waitFor(() => receiver.spans.filter(forwarded).length === 2);
  await receiver.close();
  // The workbench's prompt name upstream, the server's own downstream.
  const pairs = [["prompts/get dev__m__meta_prompt", "prompts/get meta_prompt", prompt], ["resources/read", "resources/read", resource]] as const;
  for (const [serverName, clientName, meta] of pairs) {
    const server = receiver.spans.find((span) => span.name === serverName && span.kind === SERVER);
    const client = receiver.spans.find((span) => span.name === clientName && span.kind === CLIENT);
    assert.ok(server && client, `${serverName}: ${receiver.spans.map((span) => span.name).join(", ")}`);
    assert.equal(server.parentSpanId, CLIENT_SPAN);
    assert.equal(client.parentSpanId, server.spanId);
    assert.equal(meta.traceparent, `00-${CLIENT_TRACE}-${client.spanId}-01`);
  }
  assert.equal(receiver.spans.find((span) => span.name === "resources/read" && span.kind === CLIENT)!.attributes["mcp.resource.uri"], "meta://here");
});

test("telemetry over serve --http: use_tool's SERVER span (tcp, its 2025 session's id, linked to the HTTP request's traceparent) and CLIENT span in the client's trace; flushed on SIGTERM", async () => {
  const receiver = await startOtlpReceiver();
  const wb = await startHttpWorkbench(configOf(), otelEnv(receiver.url, "http/json"));
  try {
    const transport = new StreamableHTTPClientTransport(new URL(wb.url), { requestInit: { headers: HTTP_HEADERS } });
    const client = new Client({ name: "http-test", version: "1.0.0" });
    await client.connect(transport);
    const sessionId = transport.sessionId;
    const got = JSON.parse(textOf(await useMeta(client, CLIENT_META)));
    await client.close();
    assert.equal(await wb.stop("SIGTERM"), 0);
    await receiver.waitFor(() => named(receiver.spans, "tools/call meta").length === 1);
    const { server, client: span } = assertUseToolTrace(receiver.spans, "tcp");
    assert.equal(got.traceparent, `00-${CLIENT_TRACE}-${span.spanId}-01`);
    assert.ok(sessionId, "the 2025-11-25 session has an Mcp-Session-Id");
    assert.equal(server.attributes["mcp.session.id"], sessionId);
    assert.deepEqual(linksOf(server), [{ traceId: HTTP_TRACE, spanId: HTTP_SPAN, traceState: "proxy=1" }]);
    // open_toolbox came with no _meta (answered by the plain-request path): a trace of its own, linked all the same.
    const [opened] = named(receiver.spans, "tools/call open_toolbox");
    assert.notEqual(opened.traceId, HTTP_TRACE);
    assert.deepEqual(linksOf(opened), [{ traceId: HTTP_TRACE, spanId: HTTP_SPAN, traceState: "proxy=1" }]);
  } finally {
    await wb.stop("SIGKILL");
    await receiver.close();
  }
});

test("telemetry over serve --http, 2026-07-28: a request's SERVER span is under its _meta's traceparent, linked to its HTTP header's, with the client's request id", async () => {
  const receiver = await startOtlpReceiver();
  const wb = await startHttpWorkbench(configOf(), otelEnv(receiver.url, "http/json"));
  try {
    const envelope = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
    const response = await fetch(wb.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        ...HTTP_HEADERS,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "open_toolbox", arguments: { toolbox_name: "dev" }, _meta: { ...envelope, ...CLIENT_META } },
      }),
      signal: AbortSignal.timeout(20_000),
    });
    assert.equal(response.status, 200, await response.clone().text());
    await response.text();
    assert.equal(await wb.stop("SIGTERM"), 0);
    await receiver.waitFor(() => named(receiver.spans, "tools/call open_toolbox").length === 1);
    const [server] = named(receiver.spans, "tools/call open_toolbox");
    assert.equal(server.kind, SERVER);
    assert.equal(server.traceId, CLIENT_TRACE);
    assert.equal(server.parentSpanId, CLIENT_SPAN);
    assert.equal(server.attributes["mcp.protocol.version"], "2026-07-28");
    // The client's id, not the one the hub passes the request on under.
    assert.equal(server.attributes["jsonrpc.request.id"], "7");
    assert.deepEqual(linksOf(server), [{ traceId: HTTP_TRACE, spanId: HTTP_SPAN, traceState: "proxy=1" }]);
  } finally {
    await wb.stop("SIGKILL");
    await receiver.close();
  }
});

test("telemetry to a remote server: a call's request carries its CLIENT span's traceparent as an HTTP header too, as in _meta", async () => {
  const receiver = await startOtlpReceiver();
  const remote = await startHttpFixture();
  const config = { toolboxes: { dev: { mcpServers: { r: { url: remote.url("/mcp") } } } } };
  const session = await startWorkbench(config, otelEnv(receiver.url, "http/json"));
  let digests: string[];
  try {
    await session.client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } });
    const result = await session.client.callTool({
      name: "use_tool",
      arguments: { tool: { toolbox: "dev", server: "r", name: "headers" }, arguments: { name: "traceparent" } },
      _meta: CLIENT_META,
    }) as CallToolResult;
    digests = JSON.parse(textOf(result));
  } finally {
    await session.close();
    await remote.stop();
  }
  await receiver.waitFor(() => named(receiver.spans, "tools/call headers").length === 1);
  await receiver.close();
  const [span] = named(receiver.spans, "tools/call headers");
  const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
  // The fixture lists the header of every request it got; the call's own request is the last.
  assert.equal(digests.at(-1), sha256(`00-${CLIENT_TRACE}-${span.spanId}-01`), JSON.stringify(digests));
});

for (const off of ["no endpoint", "OTEL_SDK_DISABLED"]) {
  test(`telemetry off (${off}): nothing is sent, the server's _meta gets no trace context, the audit log no ids`, async () => {
    const receiver = await startOtlpReceiver();
    const audit = `${tempDir()}/audit.jsonl`;
    const env = off === "no endpoint" ? {} : { ...otelEnv(receiver.url), OTEL_SDK_DISABLED: "true" };
    const session = await startWorkbench(configOf(audit), env);
    try {
      const got = JSON.parse(textOf(await useMeta(session.client, CLIENT_META)));
      assert.deepEqual(Object.keys(got), ["progressToken"]);
    } finally {
      await session.close();
      await receiver.close();
    }
    assert.deepEqual(receiver.requests, []);
    const [line] = readFileSync(audit, "utf8").trim().split("\n").map((text) => JSON.parse(text));
    assert.equal(line.outcome, "ok");
    assert.equal("trace_id" in line || "span_id" in line, false);
  });
}
