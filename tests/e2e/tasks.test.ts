/**
 * A tool the server runs only as a task (`execution.taskSupport: "required"`, everything's
 * simulate-research-query): use_tool reaches its result through the task API, relays the task's
 * statuses as progress, and cancelling the call cancels the task.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { fixtureServer, npmServer } from "../helpers/runtime.ts";
import { tempDir, withWorkbench } from "../helpers/workbench.ts";
import { errorText, eventually, okText, opened, openToolbox, useTool } from "../helpers/toolbox.ts";
import type { CallToolResult } from "../helpers/sdk.ts";

const config = { toolboxes: { ref: { description: "r", mcpServers: { everything: npmServer("everything") } } } };
const research = { tool: { toolbox: "ref", server: "everything", name: "simulate-research-query" }, arguments: { topic: "tides" } };

test("tasks: a tasks-required tool is called to its result, its statuses reaching the client as progress", async () => {
  await withWorkbench(config, async (session) => {
    opened(await openToolbox(session, "ref"));
    const progress: { progress: number; message?: string }[] = [];
    const result = await session.client.callTool({ name: "use_tool", arguments: research }, undefined, {
      timeout: 30_000,
      onprogress: (update) => progress.push(update),
    }) as CallToolResult;
    const text = okText(result);
    assert.ok(text.includes("tides"), text);
    assert.ok(progress.length >= 2, JSON.stringify(progress));
    assert.ok(progress.some((update) => update.message?.includes("Gathering sources")), JSON.stringify(progress));
    assert.deepEqual(progress.map((update) => update.progress), progress.map((_, index) => index + 1), "progress only goes up");
  });
});

test("tasks: cancelling the use_tool call cancels the task on the server; a stalled task meets maxCallTimeMs", async () => {
  const dir = tempDir();
  const log = `${dir}/tasks.log`;
  const slow = fixtureServer("task-server.ts", { env: { FIXTURE_TASK_LOG: log }, maxCallTimeMs: 1_500 });
  try {
    await withWorkbench({ toolboxes: { dev: { description: "d", mcpServers: { tasks: slow } } } }, async (session) => {
      opened(await openToolbox(session, "dev"));
      const controller = new AbortController();
      const call = session.client.callTool({ name: "use_tool", arguments: { tool: { toolbox: "dev", server: "tasks", name: "slow" } } }, undefined, {
        timeout: 10_000,
        signal: controller.signal,
        onprogress: () => controller.abort("enough"),
      });
      await assert.rejects(call);
      await eventually("the task cancelled on the server", () => existsSync(log) ? readFileSync(log, "utf8") : "", (text) => text === "cancel task-1\n");
      // Statuses keep coming, but the task never ends: the call's maximum time ends it, and the task too.
      assert.equal(
        errorText(await useTool(session, "dev", "tasks", "slow")),
        "Error executing tool 'slow' in server 'tasks' (toolbox 'dev'): call exceeded the maximum call time of 1500 ms (maxCallTimeMs)",
      );
      await eventually("the stalled task cancelled too", () => readFileSync(log, "utf8"), (text) => text === "cancel task-1\ncancel task-1\n");
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
