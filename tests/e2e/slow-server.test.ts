/**
 * A toolbox is as fast as its servers that answer: while one of its servers takes 20 s to start,
 * `call` on another answers and exits as it does without the slow one, and so do open_toolbox
 * (naming the one still starting) and use_tool on the fast one. The slow server joins the toolbox
 * once it has started. Judged against the slow server's 20 s and a control measured in the same
 * run, not against a number of seconds a loaded machine can pass.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { workbenchCommand, workbenchEnv } from "../helpers/runtime.ts";
import { fx, okText, opened, openToolbox, spawnLog, useTool } from "../helpers/toolbox.ts";
import { removeTempDirs, tempDir, withWorkbench, writeConfig } from "../helpers/workbench.ts";

after(removeTempDirs);

/** How long the slow server takes to start: what a wait for it would cost. */
const SLOW_START_MS = 20_000;
/** How long a server that has work to finish is given to leave, which one still starting is not. */
const STOP_GRACE_MS = 2_000;
const FAST = { fast: fx("F") };
const CONFIG = {
  toolboxes: {
    t: { description: "fast and slow", mcpServers: { ...FAST, slow: fx("S", {}, { FIXTURE_START_DELAY_MS: String(SLOW_START_MS) }) } },
  },
};

/** `call t fast echo` for this configuration: its exit code, stdout, time to exit, and time from the answer to the exit. */
async function callFast(config: unknown): Promise<{ code: unknown; stdout: string; ms: number; exitAfterAnswer: number }> {
  const dir = tempDir();
  const { command, args } = workbenchCommand(["call", "t", "fast", "echo", '{"text": "hi"}', "--config", writeConfig(dir, config)]);
  const started = performance.now();
  const child = spawn(command, args, { env: workbenchEnv(), cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  let answeredAt = 0;
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text, answeredAt ||= performance.now()));
  let exited = 0;
  child.on("exit", () => (exited = performance.now()));
  // Its stdout may be read after the exit event: the answer's time is known once the pipes closed.
  const code = await new Promise((resolve) => child.on("close", resolve));
  return { code, stdout, ms: Math.round(exited - started), exitAfterAnswer: Math.round(exited - answeredAt) };
}

test("call on a fast server does not wait for a slow one of its toolbox, nor for it to stop", async () => {
  // The control, in this run: the same call with the fast server alone in its toolbox.
  const alone = await callFast({ toolboxes: { t: { description: "fast", mcpServers: FAST } } });
  assert.equal(alone.code, 0);
  const beside = await callFast(CONFIG);
  assert.equal(beside.code, 0);
  assert.match(beside.stdout, /hi/);
  const figures = `${beside.ms} ms in all, exit ${beside.exitAfterAnswer} ms after the answer; ` +
    `alone ${alone.ms} and ${alone.exitAfterAnswer} ms`;
  // A wait for the slow one would cost its 20 s: half of that tells it on any machine.
  assert.ok(beside.ms < alone.ms + SLOW_START_MS / 2, figures);
  // A server still starting has no work to finish: it is not given the 2 s grace to leave.
  assert.ok(beside.exitAfterAnswer < alone.exitAfterAnswer + STOP_GRACE_MS / 2, figures);
});

test("open_toolbox names the slow server as starting; use_tool on the fast one answers at once", async () => {
  const log = spawnLog();
  const slow = fx("S", {}, { FIXTURE_START_DELAY_MS: String(SLOW_START_MS), ...log.env });
  const config = { toolboxes: { t: { ...CONFIG.toolboxes.t, mcpServers: { fast: fx("F", {}, log.env), slow } } } };
  await withWorkbench(config, async (session) => {
    const started = performance.now();
    const value = opened(await openToolbox(session, "t"));
    assert.equal(value.servers_connected, 1);
    assert.match(value.starting ?? "", /^Still starting: 'slow'\./);
    assert.equal(value._errors, undefined);
    assert.ok(value.tools.every((tool) => tool.source_server === "fast"));
    assert.match(okText(await useTool(session, "t", "fast", "echo", { text: "hi" })), /hi/);
    const ms = performance.now() - started;
    // A wait for the slow one would cost its 20 s: half of that tells it on any machine.
    assert.ok(ms < SLOW_START_MS / 2, `open_toolbox and use_tool took ${Math.round(ms)} ms`);
    // Opened again: the slow one is still starting, named again at once (not restarted, not waited for).
    const reopening = performance.now();
    const again = opened(await openToolbox(session, "t"));
    assert.match(again.starting ?? "", /^Still starting: 'slow'\./);
    // (The slow one notes its start once it runs: on a loaded machine it may not have yet.)
    const labels = log.spawned().map((line) => line.split(" ")[0]);
    const starts = (label: string) => labels.filter((each) => each === label).length;
    assert.ok(starts("F") === 1 && starts("S") <= 1, `not started again: ${labels}`);
    // Waited for, it would answer only once the slow one started, over 10 s from now.
    assert.ok(performance.now() - reopening < SLOW_START_MS / 4, `opened again in ${Math.round(performance.now() - reopening)} ms`);
  });
});
