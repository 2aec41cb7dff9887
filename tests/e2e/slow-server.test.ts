/**
 * A toolbox is as fast as its servers that answer: while one of its servers takes 20 s to start,
 * `call` on another answers within 5 s, and so do open_toolbox (naming the one still starting)
 * and use_tool on the fast one. The slow server joins the toolbox once it has started.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { workbenchCommand, workbenchEnv } from "../helpers/runtime.ts";
import { fx, okText, opened, openToolbox, useTool } from "../helpers/toolbox.ts";
import { removeTempDirs, tempDir, withWorkbench, writeConfig } from "../helpers/workbench.ts";

after(removeTempDirs);

const FIGURE_MS = 5_000;
const CONFIG = {
  toolboxes: {
    t: { description: "fast and slow", mcpServers: { fast: fx("F"), slow: fx("S", {}, { FIXTURE_START_DELAY_MS: "20000" }) } },
  },
};

test("call on a fast server does not wait for a slow one of its toolbox, nor for it to stop", async () => {
  const dir = tempDir();
  const { command, args } = workbenchCommand(["call", "t", "fast", "echo", '{"text": "hi"}', "--config", writeConfig(dir, CONFIG)]);
  const started = performance.now();
  const child = spawn(command, args, { env: workbenchEnv(), cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  let answeredAt = 0;
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text, answeredAt ||= performance.now()));
  const code = await new Promise((resolve) => child.on("exit", resolve));
  const ms = performance.now() - started;
  assert.equal(code, 0);
  assert.match(stdout, /hi/);
  assert.ok(ms < FIGURE_MS, `call took ${Math.round(ms)} ms`);
  // A server still starting has no work to finish: it is not given the 2 s grace to leave.
  assert.ok(performance.now() - answeredAt < 1_500, `exit ${Math.round(performance.now() - answeredAt)} ms after the answer`);
});

test("open_toolbox names the slow server as starting; use_tool on the fast one answers at once", async () => {
  await withWorkbench(CONFIG, async (session) => {
    const started = performance.now();
    const value = opened(await openToolbox(session, "t"));
    assert.equal(value.servers_connected, 1);
    assert.match(value.starting ?? "", /^Still starting: 'slow'\./);
    assert.equal(value._errors, undefined);
    assert.ok(value.tools.every((tool) => tool.source_server === "fast"));
    assert.match(okText(await useTool(session, "t", "fast", "echo", { text: "hi" })), /hi/);
    const ms = performance.now() - started;
    assert.ok(ms < FIGURE_MS, `open_toolbox and use_tool took ${Math.round(ms)} ms`);
    // Opened again: the slow one is still starting, named again at once (not restarted, not waited for).
    const reopening = performance.now();
    const again = opened(await openToolbox(session, "t"));
    assert.match(again.starting ?? "", /^Still starting: 'slow'\./);
    assert.ok(performance.now() - reopening < 1_000, `opened again in ${Math.round(performance.now() - reopening)} ms`);
  });
});
