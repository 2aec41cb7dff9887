/**
 * Code mode end to end (issue 28): the workbench over real stdio with the SDK client, our fixture
 * server behind it. run_code only with "codeMode"; a script's calls go the use_tool way (filters,
 * progress, cancellation, a server's question answered by the client); a script that loops never
 * holds up the session; the result is { result, logs, calls } and errors carry the logs so far.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { type CallToolResult, Client, ElicitRequestSchema } from "../helpers/sdk.ts";
import { removeTempDirs, startWorkbench, tempDir, textOf, withWorkbench } from "../helpers/workbench.ts";
import { call, eventually, firstProgress, fx, opened, openToolbox, sleep, spawnLog, useTool } from "../helpers/toolbox.ts";
import { residentBytes } from "../../scripts/bench/memory.ts";

after(removeTempDirs);

const withCode = (extra: Record<string, unknown> = {}) => ({
  codeMode: { timeoutMs: 5_000, ...extra },
  toolboxes: {
    dev: { description: "Fixture", mcpServers: { s: fx("s", { toolFilters: ["echo", "structured", "fail", "sleep", "progress", "cancellations", "confirm", "x-y.z"] }, { FIXTURE_CLIENT_FEATURES: "1" }) } },
    plain: { codeMode: false, mcpServers: { p: fx("p") } },
    broken: { mcpServers: { gone: { command: "false" } } },
  },
});

const runCode = (session: Parameters<typeof call>[0], code: string, toolbox = "dev") => call(session, "run_code", { toolbox, code });

interface Ran {
  result: unknown;
  logs: string[];
  calls: number;
}

function ran(result: CallToolResult): Ran {
  assert.equal(result.isError, undefined, textOf(result));
  assert.deepEqual(JSON.parse(textOf(result)), result.structuredContent);
  return result.structuredContent as unknown as Ran;
}

test("code mode: without codeMode tools/list is exactly open_toolbox and use_tool", async () => {
  await withWorkbench({ toolboxes: { dev: { mcpServers: { s: fx("s") } } } }, async (session) => {
    const { tools } = await session.client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), ["open_toolbox", "use_tool"]);
  });
});

test("code mode: run_code is listed, open_toolbox gives declarations, a script calls tools every way", async () => {
  await withWorkbench(withCode(), async (session) => {
    const { tools } = await session.client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), ["open_toolbox", "use_tool", "run_code"]);
    const runCodeTool = tools.find((tool) => tool.name === "run_code")!;
    assert.match(runCodeTool.description!, /Toolboxes with code mode: dev, broken\./);
    const value = opened(await openToolbox(session, "dev")) as { declarations?: string };
    assert.match(value.declarations ?? "", /declare const tools/);
    assert.match(value.declarations ?? "", /"x-y\.z"/);
    const script = `
      const text: string = await tools.s.echo({ text: "hi" });
      console.log("echoed", text);
      const [structured, dotted, raw] = await Promise.all([tools.s.structured({}), tools["s"]["x-y.z"]({}), call("s", "fail", {})]);
      let thrown = "";
      try { await tools.s.fail({}); } catch (error) { thrown = (error as Error).message; }
      console.warn("careful");
      return { text, structured, dotted, rawIsError: raw.isError, thrown };`;
    const value2 = ran(await runCode(session, script));
    assert.deepEqual(value2.result, {
      text: "s: hi",
      structured: { label: "s", n: 42 },
      dotted: "s ran 'x-y.z' with {}",
      rawIsError: true,
      thrown: "s: this tool failed",
    });
    assert.deepEqual(value2.logs, ["echoed s: hi", "warn: careful"]);
    assert.equal(value2.calls, 5);
  });
});

test("code mode: once the listing cache knows a toolbox, run_code's description carries its declarations", async () => {
  const env = { WORKBENCH_CACHE_DIR: `${tempDir()}/cache` };
  const first = await startWorkbench(withCode(), env);
  try {
    const { tools } = await first.client.listTools();
    assert.doesNotMatch(tools.find((tool) => tool.name === "run_code")!.description!, /declare const tools/);
    opened(await openToolbox(first, "dev"));
  } finally {
    await first.close();
  }
  await withWorkbench(withCode(), async (second) => {
    const { tools } = await second.client.listTools();
    const description = tools.find((tool) => tool.name === "run_code")!.description!;
    assert.match(description, /\nToolbox dev:\ndeclare const tools: \{/);
    assert.match(description, /\becho\(args: \{ text: string \}\)/);
    // Filters apply: pid is not among the toolbox's tools.
    assert.doesNotMatch(description, /\bpid\b/);
  }, env);
});

test("code mode: a filtered-out tool does not exist in tools, and call() of it is refused as use_tool would be", async () => {
  await withWorkbench(withCode(), async (session) => {
    const value = ran(await runCode(session, `return [typeof tools.s.pid, (await call("s", "pid", {})).content[0].text];`));
    const [type, refusal] = value.result as [string, string];
    assert.equal(type, "undefined");
    assert.match(refusal, /Tool 'pid' not found in server 's'/);
  });
});

test("code mode: a toolbox without code mode is refused with how to turn it on; unknown toolboxes are named", async () => {
  await withWorkbench(withCode(), async (session) => {
    const refused = await runCode(session, "return 1", "plain");
    assert.equal(refused.isError, true);
    assert.equal(
      textOf(refused),
      `Code mode is off for toolbox 'plain': turn it on with "codeMode": true at the top of the configuration or in toolbox 'plain'`,
    );
    const broken = await runCode(session, "return 1", "broken");
    assert.match(textOf(broken), /^All servers in toolbox 'broken' failed to connect:\nFailed to connect to server 'gone' in toolbox 'broken': /);
    const unknown = await runCode(session, "return 1", "nope");
    assert.match(textOf(unknown), /^Toolbox 'nope' not found in configuration/);
  });
});

test("code mode: errors and broken limits give isError with the logs so far; no ambient authority", async () => {
  await withWorkbench(withCode({ timeoutMs: 2_000, maxCalls: 2 }), async (session) => {
    const thrown = await runCode(session, `console.log("before");\nthrow new Error("boom");`);
    assert.equal(thrown.isError, true);
    assert.match(textOf(thrown), /^Script failed: Error: boom \(line 2, column \d+\)\nLogs so far:\nbefore$/);
    const syntax = await runCode(session, "const x = ;");
    assert.match(textOf(syntax), /^Script failed: SyntaxError: .* \(line 1, column \d+\)$/);
    const calls = await runCode(session, `for (let i = 0; i < 5; i++) await tools.s.echo({ text: String(i) });`);
    assert.match(textOf(calls), /^Script stopped: it made more tool calls than the limit: maxCalls \(2\)/);
    const loop = await runCode(session, "console.log('looping'); while (true) {}");
    assert.match(textOf(loop), /^Script stopped: it ran past the time limit: timeoutMs \(2000 ms\)\nLogs so far:\nlooping$/);
    const names = ["fetch", "process", "require", "Deno", "Bun", "setTimeout", "setInterval", "WebAssembly", "XMLHttpRequest"];
    const ambient = ran(await runCode(session, `return ${JSON.stringify(names)}.map((name) => typeof (globalThis as any)[name]);`));
    assert.deepEqual(ambient.result, names.map(() => "undefined"));
    const imported = await runCode(session, `return await import("node:fs");`);
    assert.equal(imported.isError, true);
  });
});

test("code mode: the session answers a use_tool while a script loops, and after it", async () => {
  await withWorkbench(withCode({ timeoutMs: 5_000 }), async (session) => {
    opened(await openToolbox(session, "dev"));
    // The script's one call says when it began (its progress): the loop starts as it returns.
    const begins = firstProgress("the script's call before its loop");
    const code = "await tools.s.sleep({ ms: 1 }); while (true) {}";
    const looping = session.client.callTool({ name: "run_code", arguments: { toolbox: "dev", code } }, undefined, {
      timeout: 20_000,
      onprogress: begins.onprogress,
    }) as Promise<CallToolResult>;
    let ended = false;
    void looping.finally(() => (ended = true)).catch(() => {});
    await begins.begun();
    const started = Date.now();
    const echoed = await useTool(session, "dev", "s", "echo", { text: "still here" });
    assert.equal(textOf(echoed), "s: still here");
    // Judged by order, not by a bound in seconds: a session held by the loop answers only after it ends (timeoutMs).
    assert.equal(ended, false, `use_tool answered only after the looping script ended (${Date.now() - started} ms)`);
    assert.match(textOf(await looping), /timeoutMs/);
    assert.deepEqual(ran(await runCode(session, "return 2")).result, 2);
  });
});

test("code mode: the containment set through the workbench: each ends with its error, the workbench answers and its memory comes back", async () => {
  // Only the endless loop is to meet the time limit (toolbox "timed", 2 s): the others get one a
  // loaded machine's slow allocation never reaches first (their own limit ends them in seconds).
  const limits = { memoryMiB: 16, maxOutputBytes: 64 * 1024 };
  const config = withCode({ timeoutMs: 30_000, ...limits });
  const timed = { codeMode: { timeoutMs: 2_000, ...limits }, mcpServers: config.toolboxes.dev.mcpServers };
  await withWorkbench({ ...config, toolboxes: { ...config.toolboxes, timed } }, async (session) => {
    opened(await openToolbox(session, "dev"));
    assert.equal(ran(await runCode(session, "return 1")).result, 1);
    const before = residentBytes(session.pid);
    const cases: [string, RegExp][] = [
      ["while (true) {}", /timeoutMs \(2000 ms\)/],
      ["let s = 'x'; for (;;) s += s + s.slice(1);", /memoryMiB \(16 MiB\)|string too long/],
      ["const a = []; for (;;) a.push('y'.repeat(1 << 20) + a.length);", /memoryMiB \(16 MiB\)/],
      ["const a = []; for (let i = 0; ; i++) a.push([i, i]);", /memoryMiB \(16 MiB\)/],
      ["const f = (n: number): number => f(n + 1) + 1; return f(0);", /stack limit|memoryMiB/],
      ["const a: any = {}; a.a = a; return a;", /circular reference/],
      ["return 'z'.repeat(1 << 20);", /maxOutputBytes \(1048578 bytes of 65536\)/],
      ["return Function('return this')().process ?? tools.s.echo.constructor('return typeof Bun')();", /^\{"result":"undefined"/],
    ];
    for (const [code, expected] of cases) {
      assert.match(textOf(await runCode(session, code, code === "while (true) {}" ? "timed" : "dev")), expected, code);
      assert.equal(textOf(await useTool(session, "dev", "s", "echo", { text: "alive" })), "s: alive");
    }
    const after = residentBytes(session.pid);
    // NaN off Linux: nothing to compare. The ended workers' memory is gone; one idle worker stays.
    if (!Number.isNaN(before)) assert.ok(after - before < 96 * 1024 * 1024, `RSS ${(before / 2 ** 20).toFixed(0)} -> ${(after / 2 ** 20).toFixed(0)} MiB`);
  });
});

test("code mode: 200 calls of 12 MB to a missing tool are refused as use_tool refuses them, their arguments never copied out", async (t) => {
  await withWorkbench(withCode({ timeoutMs: 60_000, memoryMiB: 64 }), async (session) => {
    opened(await openToolbox(session, "dev"));
    assert.equal(ran(await runCode(session, "return 1")).result, 1);
    const before = residentBytes(session.pid, "VmHWM");
    const started = performance.now();
    const code = `const big = { big: "x".repeat(12 * 1024 * 1024) };
      const calls = [];
      for (let i = 0; i < 200; i++) calls.push(call("s", "nope", big));
      const results = await Promise.all(calls);
      return [results.filter((result) => result.isError).length, results[0].content[0].text];`;
    const value = ran(await runCode(session, code));
    const peak = residentBytes(session.pid, "VmHWM");
    t.diagnostic(`${(performance.now() - started).toFixed(0)} ms; peak RSS ${(before / 2 ** 20).toFixed(0)} -> ${(peak / 2 ** 20).toFixed(0)} MiB`);
    const [refused, text] = value.result as [number, string];
    assert.equal(refused, 200);
    assert.match(text, /^Error executing tool: Tool 'nope' not found in server 's' \(toolbox 'dev'\)/);
    assert.equal(value.calls, 200);
    // NaN off Linux: nothing to compare. The script's own 12 MB stay in its engine's memory.
    if (!Number.isNaN(before)) assert.ok(peak - before < 64 * 2 ** 20, `peak RSS ${(before / 2 ** 20).toFixed(0)} -> ${(peak / 2 ** 20).toFixed(0)} MiB`);
  });
});

test("code mode: progress of an inner call reaches the client on run_code's token", async () => {
  await withWorkbench(withCode(), async (session) => {
    const seen: number[] = [];
    const result = await session.client.callTool({ name: "run_code", arguments: { toolbox: "dev", code: `return await tools.s.progress({ steps: 3, ms: 20 });` } }, undefined, {
      timeout: 20_000,
      onprogress: (progress) => seen.push(progress.progress),
    });
    assert.equal(ran(result as CallToolResult).result, "s made 3 steps");
    assert.deepEqual(seen, [1, 2, 3]);
  });
});

test("code mode: cancelling run_code cancels its inner call", async () => {
  await withWorkbench(withCode({ timeoutMs: 20_000 }), async (session) => {
    const controller = new AbortController();
    const sleeping = firstProgress("the inner sleep");
    const pending = session.client.callTool({ name: "run_code", arguments: { toolbox: "dev", code: `await tools.s.sleep({ ms: 15000 });` } }, undefined, {
      signal: controller.signal,
      timeout: 20_000,
      onprogress: sleeping.onprogress,
    });
    // Cancelled once the inner call is on the server (its first progress), not after a guessed time.
    await sleeping.begun();
    controller.abort("enough");
    await assert.rejects(pending);
    let count = "0";
    for (let i = 0; i < 50 && count === "0"; i++) {
      await sleep(100);
      count = textOf(await useTool(session, "dev", "s", "cancellations", {}));
    }
    assert.equal(count, "1");
  });
});

test("code mode: a server's elicitation during an inner call is answered by the client", async () => {
  const client = new Client({ name: "code-client", version: "1.0.0" }, { capabilities: { elicitation: {} } });
  const asked: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params.message);
    return { action: "accept", content: { name: "Ada" } };
  });
  const session = await startWorkbench(withCode(), {}, client);
  try {
    const value = ran(await runCode(session, `return await tools.s.confirm({ what: "deploy" });`));
    assert.equal(value.result, "deploy confirmed by Ada");
    assert.deepEqual(asked, ["Who confirms deploy?"]);
  } finally {
    await session.close();
  }
});

test("code mode: a result over the toolbox's maxResultTokens is cut like use_tool's, and read back whole with read_result", async () => {
  const config = {
    codeMode: { timeoutMs: 5_000 },
    maxResultTokens: 1_000,
    toolboxes: { dev: { description: "Fixture", mcpServers: { s: fx("s") } } },
  };
  await withWorkbench(config, async (session) => {
    opened(await openToolbox(session, "dev"));
    const result = await runCode(session, `return "line of text\\n".repeat(2_000);`);
    assert.equal(result.isError, undefined);
    assert.equal(result.structuredContent, undefined, "structuredContent over the cap is not kept whole");
    const texts = (result.content as { text: string }[]).map((item) => item.text);
    let whole = texts.slice(0, -1).join("");
    let next = /use_tool (\{"tool":\{"toolbox":"dev","server":"workbench","name":"read_result"\}[^\n]*?\}\})/.exec(texts.at(-1)!)?.[1];
    assert.ok(next, texts.at(-1) ?? "");
    for (let page = 0; next && page < 50; page++) {
      const read = await call(session, "use_tool", JSON.parse(next));
      const items = (read.content as { text: string }[]).map((item) => item.text);
      whole += items.slice(0, -1).join("");
      next = /use_tool (\{"tool":\{"toolbox":"dev","server":"workbench","name":"read_result"\}[^\n]*?\}\})/.exec(items.at(-1)!)?.[1];
    }
    assert.deepEqual(JSON.parse(whole), { result: "line of text\n".repeat(2_000), logs: [], calls: 0 });
  });
});

test("code mode: a server stopped for being idle starts again for the next script, as for use_tool", async () => {
  const log = spawnLog();
  const config = {
    codeMode: { timeoutMs: 5_000 },
    toolboxes: { dev: { description: "Fixture", mcpServers: { s: fx("s", { idleTimeoutMs: 200 }, log.env) } } },
  };
  // Judged by what the log says happened, not by a count of starts: a first script slower than the
  // idle time (a sandbox's first start under load) may see the server stopped and started once more.
  const stops = (session: { stderr(): string }) =>
    session.stderr().split("\n").filter((line) => line.startsWith("[dev/s] stopped after 200 ms without a call")).length;
  await withWorkbench(config, async (session) => {
    opened(await openToolbox(session, "dev"));
    assert.equal(ran(await runCode(session, `return await tools.s.echo({ text: "one" });`)).result, "s: one");
    // Nothing starts it between the scripts: once every start so far has had its idle stop, it is down.
    const before = log.spawned().length;
    await eventually("the idle stop of every start so far", () => stops(session), (count) => count >= before, 10_000);
    assert.equal(stops(session), before, session.stderr());
    assert.equal(ran(await runCode(session, `return await tools.s.echo({ text: "two" });`)).result, "s: two");
    assert.ok(log.spawned().length > before, `started again for the next script: ${log.spawned().length} start(s), ${before} before it`);
  });
});
