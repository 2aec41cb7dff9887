/** use_tool on the reserved server `workbench` (issue 28): read_result reads the session's kept results, and starts nothing. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { validateConfig } from "../../src/config/index.ts";
import { useTool } from "../../src/tools/use-tool.ts";
import { pageResult } from "../../src/tools/page-result.ts";
import { type KeptResults, ResultStore } from "../../src/tools/result-store.ts";
import type { ToolContext } from "../../src/tools/tool.ts";
import type { SessionOffer } from "../../src/toolboxes/session-offer.ts";

const config = validateConfig({ toolboxes: { dev: { mcpServers: { fx: { command: "x" } } }, ops: {} } });
/** Any use of the offer (opening a toolbox, starting a server) fails the test. */
const noOffer = new Proxy({}, {
  get: (_, key) => {
    throw new Error(`read_result used the offer: ${String(key)}`);
  },
}) as SessionOffer;

function context(results?: KeptResults): ToolContext {
  return { session: { config, offer: noOffer, results }, request: { signal: new AbortController().signal } };
}

const read = (ctx: ToolContext, args: Record<string, unknown>, name = "read_result", toolbox = "dev") =>
  useTool.run({ tool: { toolbox, server: "workbench", name }, arguments: args }, ctx);

test("read_result: reads a kept result from an offset without the registry; the last page says it is the end", async () => {
  const store = new ResultStore();
  const whole = "line\n".repeat(2_000);
  await pageResult({ content: [{ type: "text", text: whole }] }, store, 1_000, "dev");
  const result = await read(context(store), { id: "r1", offset: 9_000 });
  assert.ok(result.ok);
  const [page, note] = result.value.content as { text: string }[];
  assert.equal(page.text, whole.slice(9_000));
  assert.equal(note.text, "Result 'r1': characters 9000 to 10000 of 10000 shown. This is the end of it.");
});

test("read_result: each mistake is named", async () => {
  const store = new ResultStore();
  await pageResult({ content: [{ type: "text", text: "x".repeat(5_000) }] }, store, 500, "dev");
  const ctx = context(store);
  const error = async (args: Record<string, unknown>, name?: string, toolbox?: string) => {
    const result = await read(ctx, args, name, toolbox);
    assert.ok(!result.ok);
    return result.error;
  };
  const where = "in server 'workbench' (toolbox 'dev')";
  assert.equal(await error({ id: "r1" }, "read_results"), `Error executing tool: Tool 'read_results' not found ${where}. Did you mean 'read_result'?`);
  assert.equal(await error({ id: "r1" }, "list"), `Error executing tool: Tool 'list' not found ${where}. Its tools are 'read_result' and 'read_skill'`);
  assert.equal(await error({ id: "r1" }, "read_result", "nope"), "Error executing tool: Toolbox 'nope' not found in configuration");
  assert.equal(
    await error({ offset: -1, extra: 1 }),
    `Invalid arguments for tool 'read_result' ${where}:\n- 'id': expected the result's id, a non-empty string\n` +
      "- 'offset': expected a non-negative integer\n- 'extra': unknown argument (expected 'id' and 'offset')",
  );
  assert.equal(
    await error({ id: "r9" }),
    `Error executing tool 'read_result' ${where}: Result 'r9' not found: a cut result is kept for 30 minutes after its last read, ` +
      "and the oldest go first when a session keeps too much",
  );
  assert.equal(await error({ id: "r1", offset: 5_001 }), `Error executing tool 'read_result' ${where}: Offset 5001 is past the end of result 'r1' (5000)`);
  assert.equal(
    await error({ id: "r1" }, "read_result", "ops"),
    "Error executing tool 'read_result' in server 'workbench' (toolbox 'ops'): Result 'r1' belongs to toolbox 'dev'",
  );
  // Without a store (no session keeps results): not found, never a crash.
  const none = await read(context(), { id: "r1" });
  assert.ok(!none.ok && none.error.includes("Result 'r1' not found"));
});

test("read_result: a store that cannot be reached is said as such, without the store's own words", async () => {
  const down = { keep: () => Promise.reject(new Error("x")), get: () => Promise.reject(new Error("The store 'redis://cache.internal:6379' is unreachable")) };
  const result = await read(context(down), { id: "r1" });
  assert.ok(!result.ok);
  assert.equal(
    result.error,
    "Error executing tool 'read_result' in server 'workbench' (toolbox 'dev'): Result 'r1' cannot be read now: the session's store cannot be reached; try again in a moment",
  );
});
