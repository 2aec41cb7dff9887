/**
 * Fidelity: a server behind the workbench does what it does for a client connected directly. The
 * SDK client in front declares elicitation (form and URL), sampling and roots with handlers; the
 * reference servers ask it things through us, follow its roots and send it their logs.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, realpathSync, rmSync } from "node:fs";
import {
  Client,
  type ClientCapabilities,
  CreateMessageRequestSchema,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  type ElicitResult,
  ListRootsRequestSchema,
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
  StdioClientTransport,
} from "../helpers/sdk.ts";
import { npmServer, workbenchEnv } from "../helpers/runtime.ts";
import { startWorkbench, tempDir, textOf } from "../helpers/workbench.ts";
import { CALL_TIMEOUT_MS, errorText, eventually, fx, okText, opened, openToolbox, toolsOf, useTool } from "../helpers/toolbox.ts";

const CAPABILITIES: ClientCapabilities = { elicitation: { form: {}, url: {} }, sampling: {}, roots: { listChanged: true } };
const CONDITIONAL = ["get-roots-list", "trigger-elicitation-request", "trigger-url-elicitation", "trigger-sampling-request"];
/** The `slow` toolbox's call timeout: the client's handler takes longer than this to answer. */
const SLOW_CALL_TIMEOUT_MS = 1_000;
/** The `slow` toolbox's cap on a call, which runs on while the client is asked. */
const SLOW_MAX_CALL_MS = 4_000;

/** What the test's client does when asked; each check sets what it needs. */
interface Behaviour {
  elicit: (params: Record<string, unknown>, signal: AbortSignal) => Promise<ElicitResult>;
  roots: { uri: string; name?: string }[];
}

/** The tool names a client connected directly to server-everything sees, with these capabilities. */
async function directTools(capabilities: ClientCapabilities): Promise<string[]> {
  const { command, args } = npmServer("everything");
  const transport = new StdioClientTransport({ command, args, env: workbenchEnv(), stderr: "ignore" });
  const client = new Client({ name: "direct", version: "1.0.0" }, { capabilities });
  if (capabilities.elicitation) client.setRequestHandler(ElicitRequestSchema, () => ({ action: "decline" }));
  if (capabilities.sampling) client.setRequestHandler(CreateMessageRequestSchema, () => ({ model: "m", role: "assistant", content: { type: "text", text: "" } }));
  if (capabilities.roots) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [] }));
  await client.connect(transport);
  try {
    // server-everything registers its conditional tools once initialized: they are listed after it.
    return await eventually("the conditional tools", async () => (await client.listTools()).tools.map((tool) => tool.name), (names) =>
      !capabilities.elicitation || names.includes("trigger-elicitation-request"));
  } finally {
    await client.close();
  }
}

function relayClient(behaviour: Behaviour, logs: LoggingMessageNotification["params"][], completed: string[]): Client {
  const client = new Client({ name: "relay-test", version: "1.0.0" }, { capabilities: CAPABILITIES });
  client.setRequestHandler(ElicitRequestSchema, (request, extra) => behaviour.elicit(request.params, extra.signal));
  client.setRequestHandler(CreateMessageRequestSchema, (request) => {
    const first = request.params.messages[0]?.content;
    const asked = first && "text" in first ? first.text : "";
    return { model: "test-model", role: "assistant", content: { type: "text", text: `sampled: ${asked}` } };
  });
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: behaviour.roots }));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logs.push(notification.params));
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => void completed.push(notification.params.elicitationId));
  return client;
}

const accept = (content: Record<string, string>) => () => Promise.resolve<ElicitResult>({ action: "accept", content });
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

test("client relay: capabilities, elicitation, sampling, roots and logging pass through the workbench", async (t) => {
  const data = tempDir();
  const first = realpathSync(data) + "/first";
  const second = realpathSync(data) + "/second";
  const fixed = realpathSync(data) + "/fixed";
  for (const dir of [first, second, fixed]) mkdirSync(dir);
  const behaviour: Behaviour = { elicit: accept({ name: "Ada" }), roots: [{ uri: `file://${first}`, name: "first" }] };
  const logs: LoggingMessageNotification["params"][] = [];
  const completed: string[] = [];
  const everything = npmServer("everything");
  const session = await startWorkbench({
    toolboxes: {
      ref: {
        mcpServers: {
          everything,
          files: npmServer("filesystem"),
          fixed: { ...npmServer("filesystem", [fixed]), roots: false },
          fx: fx("fx", {}, { FIXTURE_CLIENT_FEATURES: "1" }),
        },
      },
      // The same everything process, with a call timeout shorter than the client takes to answer.
      slow: { mcpServers: { everything: { ...everything, callTimeoutMs: SLOW_CALL_TIMEOUT_MS, maxCallTimeMs: SLOW_MAX_CALL_MS } } },
    },
  }, {}, relayClient(behaviour, logs, completed));
  try {
    // Set before any server starts: each one gets it when it starts.
    await session.client.setLoggingLevel("warning");
    const ref = opened(await openToolbox(session, "ref"));
    assert.equal(ref.servers_connected, 4, JSON.stringify(ref._errors));

    await t.test("the tool list is the one a direct client with the same capabilities sees", async () => {
      const direct = await directTools(CAPABILITIES);
      for (const name of CONDITIONAL) assert.ok(direct.includes(name), name);
      assert.deepEqual(toolsOf(ref, "everything").sort(), [...direct].sort());
    });

    await t.test("a form elicitation goes to the client and its answer back", async () => {
      let asked: Record<string, unknown> | undefined;
      behaviour.elicit = (params) => (asked = params, Promise.resolve({ action: "accept", content: { name: "Ada" } }));
      const result = await useTool(session, "ref", "everything", "trigger-elicitation-request", {});
      assert.ok(JSON.stringify(result).includes("Ada"), JSON.stringify(result));
      assert.equal(asked?.message, "Please provide inputs for the following fields:");
    });

    await t.test("a declined elicitation reaches the server as declined", async () => {
      behaviour.elicit = () => Promise.resolve({ action: "decline" });
      const result = await useTool(session, "ref", "everything", "trigger-elicitation-request", {});
      assert.match(JSON.stringify(result), /declin/i);
    });

    await t.test("a URL elicitation and the completion the server sends after it reach the client", async () => {
      let mode: unknown;
      behaviour.elicit = (params) => (mode = params.mode, Promise.resolve({ action: "accept" }));
      assert.equal(okText(await useTool(session, "ref", "fx", "url_elicit", {})), "url elicitation: accept");
      assert.equal(mode, "url");
      await eventually("the completion", () => completed, (ids) => ids.includes("fx-elicitation"));
    });

    await t.test("sampling goes to the client and its message back", async () => {
      const result = await useTool(session, "ref", "everything", "trigger-sampling-request", { prompt: "hello there" });
      assert.ok(JSON.stringify(result).includes("sampled: "), JSON.stringify(result));
      assert.ok(JSON.stringify(result).includes("hello there"), JSON.stringify(result));
    });

    await t.test("a client handler that throws gives the server an error, not a hang", async () => {
      behaviour.elicit = () => Promise.reject(new Error("nobody is there"));
      const result = await useTool(session, "ref", "everything", "trigger-elicitation-request", {});
      // The client's error as the server gets it directly: its code, its message, one SDK prefix.
      assert.equal(errorText(result), "MCP error -32603: nobody is there");
    });

    await t.test("a long wait on the client does not count toward callTimeoutMs", async () => {
      behaviour.elicit = async () => {
        await sleep(SLOW_CALL_TIMEOUT_MS * 2.5);
        return { action: "accept", content: { name: "Slow" } };
      };
      opened(await openToolbox(session, "slow"));
      const result = await useTool(session, "slow", "everything", "trigger-elicitation-request", {});
      assert.ok(JSON.stringify(result).includes("Slow"), JSON.stringify(result));
    });

    await t.test("a client that never answers: the call ends at maxCallTimeMs and the question is withdrawn", async () => {
      let withdrawn = false;
      behaviour.elicit = (_params, signal) =>
        new Promise((resolve) => signal.addEventListener("abort", () => (withdrawn = true, resolve({ action: "cancel" })), { once: true }));
      const result = await useTool(session, "slow", "everything", "trigger-elicitation-request", {});
      assert.match(errorText(result), /maximum call time of 4000 ms \(maxCallTimeMs\)/);
      await eventually("the withdrawn question", () => withdrawn, (done) => done);
    });

    await t.test("cancelling the use_tool call cancels the elicitation waiting on the client", async () => {
      let waiting!: () => void;
      const asked = new Promise<void>((resolve) => (waiting = resolve));
      let cancelled!: () => void;
      const cancelledAtClient = new Promise<void>((resolve) => (cancelled = resolve));
      behaviour.elicit = (_params, signal) =>
        new Promise((resolve) => {
          waiting();
          signal.addEventListener("abort", () => (cancelled(), resolve({ action: "cancel" })), { once: true });
        });
      const controller = new AbortController();
      const call = session.client.callTool(
        { name: "use_tool", arguments: { tool: { toolbox: "ref", server: "everything", name: "trigger-elicitation-request" }, arguments: {} } },
        undefined,
        { signal: controller.signal, timeout: CALL_TIMEOUT_MS },
      ).catch((error: unknown) => error);
      await Promise.race([asked, call.then((ended) => assert.fail(`the call ended before the client was asked: ${JSON.stringify(ended)}`))]);
      controller.abort("the user gave up");
      await Promise.race([cancelledAtClient, sleep(5_000).then(() => assert.fail("the elicitation was not cancelled at the client"))]);
      await call;
    });

    await t.test("roots go to the client: get-roots-list and a filesystem server started without a directory", async () => {
      const listed = textOf(await useTool(session, "ref", "everything", "get-roots-list", {}));
      assert.ok(listed.includes(first), listed);
      const allowed = () => useTool(session, "ref", "files", "list_allowed_directories", {}).then(textOf);
      await eventually("the client's root", allowed, (text) => text.includes(first));
      behaviour.roots = [{ uri: `file://${second}`, name: "second" }];
      await session.client.sendRootsListChanged();
      const after = await eventually("the changed root", allowed, (text) => text.includes(second));
      assert.ok(!after.includes(first), after);
    });

    await t.test('"roots": false keeps a filesystem server on its own directory', async () => {
      const text = textOf(await useTool(session, "ref", "fixed", "list_allowed_directories", {}));
      assert.ok(text.includes(fixed), text);
      assert.ok(!text.includes(first) && !text.includes(second), text);
    });

    await t.test("log messages come at the level set, their logger prefixed with toolbox and server", async () => {
      const from = (logger: string) => () => logs.filter((log) => log.logger === logger).map((log) => log.level);
      assert.equal(okText(await useTool(session, "ref", "fx", "logs", { logger: "first" })), "logged");
      const warned = await eventually("warning and above", from("ref/fx/first"), (levels) => levels.includes("emergency"));
      assert.deepEqual(warned, ["warning", "error", "critical", "alert", "emergency"]);
      // Set while the server is live.
      await session.client.setLoggingLevel("debug");
      assert.equal(okText(await useTool(session, "ref", "fx", "logs", { logger: "second" })), "logged");
      const all = await eventually("every level", from("ref/fx/second"), (levels) => levels.includes("emergency"));
      assert.deepEqual(all, ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]);
    });
  } finally {
    await session.close();
    rmSync(data, { recursive: true, force: true });
  }
});

test("client relay: a client that declares nothing sees no more tools through the workbench than directly", async () => {
  const session = await startWorkbench({ toolboxes: { ref: { mcpServers: { everything: npmServer("everything") } } } });
  try {
    const ref = opened(await openToolbox(session, "ref"));
    const direct = await directTools({});
    for (const name of CONDITIONAL) assert.ok(!direct.includes(name), name);
    assert.deepEqual(toolsOf(ref, "everything").sort(), [...direct].sort());
  } finally {
    await session.close();
  }
});
