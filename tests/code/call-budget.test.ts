/**
 * A script's budget for the bytes its calls hold outside the sandbox (src/code/call-budget.ts,
 * issue 38): calls past it wait their turn, in order, and all are answered; a cycle in one call's
 * arguments fails that call only; a call of a tool the script was not given, or past maxCalls,
 * leaves without its arguments (issue 52).
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { closeSandboxes, runInSandbox, type SandboxCall } from "../../src/code/sandbox.ts";
import { MAX_CALL_BYTES } from "../../src/code/call-budget.ts";
import { DEFAULT_CODE_MODE } from "../../src/config/index.ts";

after(closeSandboxes);

const MiB = 1024 * 1024;

test("call budget: 24 concurrent calls of 4 MiB hold at most the budget (and one call) outside the sandbox, and are all answered in order", async () => {
  let held = 0;
  let peak = 0;
  const order: number[] = [];
  const call: SandboxCall = async (_server, _name, args) => {
    const bytes = JSON.stringify(args!).length;
    held += bytes;
    peak = Math.max(peak, held);
    order.push(args!.i as number);
    await new Promise((resolve) => setTimeout(resolve, 20));
    held -= bytes;
    return { content: [{ type: "text", text: String(args!.i) }] };
  };
  const code = `const big = "x".repeat(4 * 1024 * 1024);
    const calls = [];
    for (let i = 0; i < 24; i++) calls.push(call("s", "echo", { i, big }));
    return (await Promise.all(calls)).map((result) => result.content[0].text).join(",");`;
  const limits = { ...DEFAULT_CODE_MODE, timeoutMs: 20_000, memoryMiB: 64, maxCalls: 50 };
  const outcome = await runInSandbox({ code, servers: { s: ["echo"] }, limits, call, signal: new AbortController().signal });
  assert.equal(outcome.ok, true, JSON.stringify(outcome).slice(0, 300));
  assert.equal((outcome as { result: unknown }).result, Array.from({ length: 24 }, (_, i) => i).join(","));
  assert.deepEqual(order, Array.from({ length: 24 }, (_, i) => i));
  assert.ok(peak <= MAX_CALL_BYTES + 4 * MiB + 100, `peak ${(peak / MiB).toFixed(1)} MiB of arguments in flight`);
});

test("call budget: arguments that cannot be made into JSON fail that call only, as the script's error", async () => {
  const call: SandboxCall = (_server, _name, args) => Promise.resolve({ content: [{ type: "text", text: JSON.stringify(args) }] });
  const code = `const a: any = {}; a.a = a;
    const failed = await call("s", "echo", a).then(() => "sent", (error) => String(error));
    return [failed, await tools.s.echo({ ok: 1 })];`;
  const outcome = await runInSandbox({ code, servers: { s: ["echo"] }, limits: { ...DEFAULT_CODE_MODE, timeoutMs: 5_000 }, call, signal: new AbortController().signal });
  assert.equal(outcome.ok, true, JSON.stringify(outcome));
  const [failed, second] = (outcome as { result: [string, unknown] }).result;
  assert.match(failed, /circular/i);
  assert.deepEqual(second, { ok: 1 });
});

test("call budget: a call of a tool the script was not given, or past maxCalls, leaves without its arguments", async () => {
  const seen: [string, string, unknown][] = [];
  const call: SandboxCall = (server, name, args) => {
    seen.push([server, name, args]);
    return Promise.resolve({ content: [{ type: "text", text: args === undefined ? "refused" : "ran" }], isError: args === undefined });
  };
  const code = `const big = { big: "x".repeat(1024 * 1024) };
    const out = [];
    for (const [server, name] of [["s", "nope"], ["t", "echo"], ["s", "echo"], ["s", "toString"], ["s", "echo"]]) {
      out.push((await call(server, name, big)).content[0].text);
    }
    return out;`;
  const limits = { ...DEFAULT_CODE_MODE, timeoutMs: 10_000, maxCalls: 5 };
  const outcome = await runInSandbox({ code, servers: { s: ["echo"] }, limits, call, signal: new AbortController().signal });
  assert.equal(outcome.ok, true, JSON.stringify(outcome).slice(0, 300));
  assert.deepEqual((outcome as { result: unknown }).result, ["refused", "refused", "ran", "refused", "ran"]);
  assert.deepEqual(seen.map(([server, name, args]) => [server, name, args === undefined ? "not copied" : "copied"]), [
    ["s", "nope", "not copied"],
    ["t", "echo", "not copied"],
    ["s", "echo", "copied"],
    ["s", "toString", "not copied"],
    ["s", "echo", "copied"],
  ]);
  // Past maxCalls the script is stopped, and the call that went past was not copied either.
  seen.length = 0;
  const past = await runInSandbox({ code, servers: { s: ["echo"] }, limits: { ...limits, maxCalls: 2 }, call, signal: new AbortController().signal });
  assert.equal(past.ok, false);
  assert.match((past as { error: string }).error, /maxCalls \(2\)/);
  assert.equal(seen.length, 2, "the third call is stopped before it reaches the host");
});
