/**
 * The sandbox alone (src/code/sandbox.ts), with a host function for tool calls: the containment
 * set of issue 28 (endless loop, string doubling, large arrays, deep recursion, prototype tricks on
 * the bridge, the host's globalThis, a cycle, a huge value), each ended with its error, the
 * process alive and its memory back under a bound; no ambient authority; a fresh context per run;
 * the workers shared fairly among clients.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { closeSandboxes, runInSandbox, type SandboxCall, type ScriptOutcome } from "../../src/code/sandbox.ts";
import { DEFAULT_CODE_MODE } from "../../src/config/index.ts";

after(closeSandboxes);

const MiB = 1024 * 1024;
const limits = { ...DEFAULT_CODE_MODE, timeoutMs: 2_000, memoryMiB: 16, maxCalls: 20, maxOutputBytes: 64 * 1024 };
const calls: { server: string; name: string; args: unknown }[] = [];
const echo: SandboxCall = (server, name, args) => {
  calls.push({ server, name, args });
  if (name === "fail") return Promise.resolve({ content: [{ type: "text", text: "it failed" }], isError: true });
  return Promise.resolve({ content: [{ type: "text", text: JSON.stringify({ server, name, args }) }] });
};

function run(code: string, overrides: Partial<typeof limits> = {}, call: SandboxCall = echo): Promise<ScriptOutcome> {
  return runInSandbox({ code, servers: { s: ["echo", "fail", "x-y.z"] }, limits: { ...limits, ...overrides }, call, signal: new AbortController().signal });
}

async function failure(code: string, overrides: Partial<typeof limits> = {}): Promise<string> {
  const outcome = await run(code, overrides);
  assert.equal(outcome.ok, false, JSON.stringify(outcome));
  return (outcome as { error: string }).error;
}

async function value(code: string): Promise<unknown> {
  const outcome = await run(code);
  assert.equal(outcome.ok, true, JSON.stringify(outcome));
  return (outcome as { result: unknown }).result;
}

test("sandbox: a script returns a value; TypeScript is stripped; calls run concurrently", async () => {
  assert.equal(await value("const n: number = 40; return n + 2;"), 42);
  const outcome = await run(`return Promise.all([tools.s.echo({ i: 1 }), tools["s"]["x-y.z"]({ i: 2 })]);`);
  assert.deepEqual(outcome, {
    ok: true,
    result: [{ server: "s", name: "echo", args: { i: 1 } }, { server: "s", name: "x-y.z", args: { i: 2 } }],
    logs: [],
    calls: 2,
  });
});

test("sandbox: scripts run side by side, past the number of workers (the rest wait their turn)", async () => {
  const outcomes = await Promise.all(Array.from({ length: 6 }, (_, i) => run(`return (await tools.s.echo({ i: ${i} })).args.i;`)));
  assert.deepEqual(outcomes.map((outcome) => outcome.ok && outcome.result), [0, 1, 2, 3, 4, 5]);
});

test("sandbox: a script cancelled while it waits for a worker leaves the queue: the next one is not stranded", async () => {
  // Four scripts hold every worker until released; four more wait and are cancelled; a ninth waits.
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const held: SandboxCall = async (server, name, args, signal) => {
    await gate;
    return echo(server, name, args, signal);
  };
  const busy = Array.from({ length: 4 }, () => run(`return (await tools.s.echo({})).name;`, {}, held));
  const cancels = Array.from({ length: 4 }, () => new AbortController());
  const cancelled = cancels.map((controller) =>
    runInSandbox({ code: "return 1;", servers: { s: ["echo"] }, limits, call: echo, signal: controller.signal })
  );
  await new Promise((resolve) => setTimeout(resolve, 50));
  for (const controller of cancels) controller.abort();
  assert.deepEqual((await Promise.all(cancelled)).map((outcome) => outcome.ok), [false, false, false, false]);
  const next = run("return 9;");
  open();
  assert.deepEqual((await Promise.all(busy)).map((outcome) => outcome.ok && outcome.result), ["echo", "echo", "echo", "echo"]);
  // Stranded, it would wait forever: the bound only catches that, far from a worker's start on a loaded machine.
  const outcome = await Promise.race([next, new Promise<string>((resolve) => setTimeout(() => resolve("stranded"), 20_000))]);
  assert.notEqual(outcome, "stranded", "the ninth script got a worker once the four were done");
  assert.equal((outcome as ScriptOutcome).ok && (outcome as { result: unknown }).result, 9);
});

test("sandbox: workers are shared among clients: one client's 8 endless scripts leave another's one-line script a worker", async () => {
  const stop = new AbortController();
  // Endless without burning the CPU (a call that never answers): what is shared here is the workers, not the cores.
  const hang: SandboxCall = (_server, _name, _args, signal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("stopped"))));
  // The worker's code loaded once before (the first start compiles it: 11 s under a loaded Deno).
  assert.equal(await value("return 0"), 0);
  // a's scripts never end by themselves (their call never answers, their time limit is far off): only the stop below ends them.
  const endless = Array.from({ length: 8 }, () =>
    runInSandbox({
      code: "await tools.s.echo({});",
      servers: { s: ["echo"] },
      limits: { ...limits, timeoutMs: 600_000 },
      call: hang,
      signal: stop.signal,
      client: "a",
    })
  );
  try {
    const started = Date.now();
    const quick = runInSandbox({ code: "return 1 + 1;", servers: {}, limits, call: echo, signal: new AbortController().signal, client: "b" });
    // Without sharing it waits for one of a's scripts to end, which none does before the stop: the
    // bound only tells the two apart, far from a worker's start on a loaded machine (no figure here).
    const outcome = await Promise.race([quick, new Promise<string>((resolve) => setTimeout(() => resolve("waited"), 45_000))]);
    assert.deepEqual(outcome, { ok: true, result: 2, logs: [], calls: 0 }, `after ${Date.now() - started} ms`);
  } finally {
    stop.abort();
    await Promise.all(endless);
  }
});

test("sandbox: no ambient authority: fetch, process, require, Deno, Bun, timers are undefined and import fails", async () => {
  const names = ["fetch", "process", "require", "Deno", "Bun", "setTimeout", "setInterval", "queueMicrotask", "WebAssembly", "hostCall", "hostLog"];
  assert.deepEqual(await value(`return ${JSON.stringify(names)}.map((n) => typeof globalThis[n]);`), names.map(() => "undefined"));
  assert.match(await failure(`return await import("node:fs");`), /^Script failed: /);
  assert.match(await failure(`import fs from "node:fs";\nreturn fs;`), /^Script failed: SyntaxError/);
});

test("sandbox: a fresh context per run: nothing a script leaves survives into the next", async () => {
  assert.equal(await value(`globalThis.left = 1; Object.prototype.polluted = true; Array.prototype.map = null; return 1;`), 1);
  assert.deepEqual(await value(`return [typeof globalThis.left, ({}).polluted, typeof [].map];`), ["undefined", null, "function"]);
});

test("sandbox: prototype tricks on the bridge reach nothing of the host", async () => {
  // Only strings cross: the host function's constructor is QuickJS's own Function, running in QuickJS.
  const result = await value(`
    const escaped = tools.s.echo.constructor("return typeof process + typeof Deno + typeof Bun")();
    Object.prototype.toJSON = () => "hijacked";
    JSON.parse = () => ({ isError: false, structuredContent: "forged" });
    const through = await tools.s.echo({ a: 1 });
    delete Object.prototype.toJSON;
    return { escaped, through, frozen: Object.isFrozen(tools.s), global: typeof Function("return this")().process };`);
  assert.deepEqual(result, {
    escaped: "undefinedundefinedundefined",
    through: { server: "s", name: "echo", args: "hijacked" },
    frozen: true,
    global: "undefined",
  });
  assert.equal(typeof process.pid, "number");
});

test("sandbox: tool results: structuredContent, text parsed when JSON, errors thrown by tools.* and kept by call()", async () => {
  const call: SandboxCall = (_server, name) =>
    Promise.resolve(
      name === "echo"
        ? { content: [{ type: "text", text: "not json" }], structuredContent: { kept: true } }
        : name === "fail"
        ? { content: [{ type: "text", text: "it failed" }], isError: true }
        : { content: [{ type: "text", text: "plain" }, { type: "text", text: "text" }] },
    );
  const outcome = await run(`
    let thrown; try { await tools.s.fail({}); } catch (e) { thrown = e instanceof Error && e.message; }
    return [await tools.s.echo({}), await tools.s["x-y.z"]({}), thrown, (await call("s", "fail", {})).isError];`, {}, call);
  assert.deepEqual(outcome.ok && outcome.result, [{ kept: true }, "plain\ntext", "it failed", true]);
});

test("sandbox: console lines are collected, and kept with an error", async () => {
  const outcome = await run(`console.log("a", { b: 1 }); console.error("c"); throw new TypeError("bad");`);
  assert.equal(outcome.ok, false);
  assert.match((outcome as { error: string }).error, /^Script failed: TypeError: bad \(line 1, column \d+\)$/);
  assert.deepEqual(outcome.logs, ["a {\"b\":1}", "error: c"]);
});

test("sandbox: the logs are cut at maxOutputBytes, with a line that says so", async () => {
  const outcome = await run(`for (let i = 0; i < 1000; i++) console.log("line " + i + " " + "x".repeat(90)); return 1;`, { maxOutputBytes: 1024 });
  assert.equal(outcome.ok, true);
  assert.equal(outcome.logs.length, 11);
  assert.equal(outcome.logs[10], "(further lines left out: the logs reached maxOutputBytes, 1024 bytes)");
});

test("sandbox: syntax errors give the line and column in the script", async () => {
  assert.match(await failure("const a = 1;\nconst b = ;"), /^Script failed: SyntaxError: Unexpected token \(line 2, column 11\)$/);
});

test("sandbox: the containment set, each with its error, the process alive and its memory back under a bound", async () => {
  const before = process.memoryUsage().rss;
  const cases: [string, string, RegExp][] = [
    ["endless loop", "while (true) {}", /^Script stopped: it ran past the time limit: timeoutMs \(2000 ms\)$/],
    ["string doubling", "let s = 'x'; for (;;) s += s + s.slice(1);", /memoryMiB \(16 MiB\)|string too long/],
    ["large strings", "const a = []; for (;;) a.push('y'.repeat(1 << 20) + a.length);", /memoryMiB \(16 MiB\)/],
    ["large arrays", "const a = []; for (let i = 0; ; i++) a.push([i, i, i]);", /memoryMiB \(16 MiB\)/],
    ["typed arrays", "const a = []; for (;;) a.push(new Float64Array(1 << 20));", /memoryMiB \(16 MiB\)/],
    ["deep recursion", "const f = (n) => f(n + 1) + 1; return f(0);", /stack limit|memoryMiB/],
    ["a cycle", "const a = {}; a.a = a; return a;", /^Script failed: TypeError: circular reference/],
    ["a huge value", "return 'z'.repeat(100 * 1024);", /^Script stopped: its result is larger than the limit: maxOutputBytes \(102402 bytes of 65536\)$/],
    ["an endless await", "await new Promise(() => {});", /^Script failed: Error: the script awaits a promise that nothing will settle$/],
    ["too many calls", "for (;;) await tools.s.echo({});", /^Script stopped: it made more tool calls than the limit: maxCalls \(20\)$/],
  ];
  for (const [name, code, expected] of cases) {
    // Only the endless loop is to meet the time limit: the others get one a loaded machine's slow
    // allocation never reaches first (their own limit ends them in seconds; this is a hang detector).
    const timeoutMs = name === "endless loop" ? limits.timeoutMs : 30_000;
    const started = Date.now();
    assert.match(await failure(code, { timeoutMs }), expected, name);
    // The time limit counts from the script's start; a new worker loads QuickJS first (up to seconds under load).
    assert.ok(Date.now() - started < timeoutMs + 10_000, `${name} took ${Date.now() - started} ms`);
    assert.equal(await value("return 'alive'"), "alive", `after ${name}`);
  }
  // The workers that held the scripts' memory are gone; one idle worker (16 MiB of QuickJS and more) stays.
  closeSandboxes();
  const grown = (process.memoryUsage().rss - before) / MiB;
  assert.ok(grown < 160, `RSS grew by ${grown.toFixed(0)} MiB over the containment set`);
});

test("sandbox: a tool result larger than the engine's memory ends the script at the memory limit", async () => {
  // The host copies a result into the engine's memory outside QuickJS's own limit: only the fixed maximum holds it.
  const big = "x".repeat(48 * MiB);
  const huge: SandboxCall = () => Promise.resolve({ content: [{ type: "text", text: big }] });
  // A time limit a loaded machine's copy of 48 MiB never reaches first: the memory limit is what is judged.
  const outcome = await run("const text = await tools.s.echo({}); return text.length;", { timeoutMs: 30_000 }, huge);
  assert.deepEqual(outcome, { ok: false, error: "Script stopped: it used more memory than the limit: memoryMiB (16 MiB)", logs: [], calls: 1 });
  assert.equal(await value("return 'alive'"), "alive");
});

test("sandbox: cancelling ends a looping script and its calls at once", async () => {
  const controller = new AbortController();
  let innerAborted = false;
  let started = 0;
  const call: SandboxCall = (_s, _n, _a, signal) => {
    // Cancelled once the call is under way.
    setTimeout(() => controller.abort(), 100);
    started = Date.now();
    return new Promise((resolve) => signal.addEventListener("abort", () => (innerAborted = true, resolve({ content: [] }))));
  };
  const looping = runInSandbox({ code: "await tools.s.echo({});", servers: { s: ["echo"] }, limits: { ...limits, timeoutMs: 20_000 }, call, signal: controller.signal });
  assert.deepEqual(await looping, { ok: false, error: "Script stopped: run_code was cancelled", logs: [], calls: 1 });
  assert.ok(Date.now() - started < 2_000);
  assert.equal(innerAborted, true);
  const spinning = new AbortController();
  const spin = runInSandbox({ code: "while (true) {}", servers: {}, limits: { ...limits, timeoutMs: 20_000 }, call: echo, signal: spinning.signal });
  const spinStarted = Date.now();
  setTimeout(() => spinning.abort(), 300);
  assert.equal((await spin).ok, false);
  assert.ok(Date.now() - spinStarted < 10_000, "a spinning script ends on cancel, not at its deadline");
});

test("sandbox: a script waiting on a slow call ends at its deadline", async () => {
  const slow: SandboxCall = (_s, _n, _a, signal) =>
    new Promise((resolve) => signal.addEventListener("abort", () => resolve({ content: [] })));
  const outcome = await run("console.log('waiting'); await tools.s.echo({});", { timeoutMs: 500 }, slow);
  assert.deepEqual(outcome, { ok: false, error: "Script stopped: it ran past the time limit: timeoutMs (500 ms)", logs: ["waiting"], calls: 1 });
});
