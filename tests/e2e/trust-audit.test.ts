/**
 * The audit log (issue 29 §3) over real stdio and through the `call` subcommand: one JSON line per
 * call with each outcome we can produce here (ok, tool error, failed, declined, cancelled), mode
 * 0600, no secret in it even with the arguments recorded, whole lines under concurrent calls, and a
 * log that cannot be written reported once while every call goes on.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { runToEnd } from "../helpers/process.ts";
import { workbenchCommand, workbenchEnv } from "../helpers/runtime.ts";
import { Client, ElicitRequestSchema } from "../helpers/sdk.ts";
import { removeTempDirs, startWorkbench, tempDir, writeConfig } from "../helpers/workbench.ts";
import { errorText, eventually, okText, openToolbox, useTool } from "../helpers/toolbox.ts";
import { runCli } from "../helpers/cli.ts";
import { ARGUMENT_SECRET, auditLines, callsReached, ENV_SECRET, trustConfig } from "../helpers/trust.ts";

after(removeTempDirs);

const KEYS = ["time", "session", "toolbox", "server", "tool", "outcome", "durationMs", "resultBytes"];

test("audit log: a line per call with its outcome, size and masked arguments; 0600; whole lines under 30 concurrent calls", async () => {
  const dir = tempDir();
  const client = new Client({ name: "trust-audit", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: "decline" }));
  // A relative path is taken from the configuration file's folder.
  const config = trustConfig(dir, ["delete_item"], { auditLog: "audit.jsonl", auditArguments: true });
  const session = await startWorkbench(config, {}, client);
  try {
    // The workbench's own folder holds its configuration: the log is there.
    const log = `${session.dir}/audit.jsonl`;
    okText(await openToolbox(session, "dev"));
    const ok = await useTool(session, "dev", "store", "echo", { password: ARGUMENT_SECRET, note: `uses ${ENV_SECRET}` });
    okText(ok);
    errorText(await useTool(session, "dev", "store", "fail", {}));
    errorText(await useTool(session, "dev", "store", "nope", {}));
    errorText(await useTool(session, "dev", "store", "delete_item", { id: "1" }));
    const controller = new AbortController();
    const sleeping = session.client.callTool(
      { name: "use_tool", arguments: { tool: { toolbox: "dev", server: "store", name: "sleep" }, arguments: { ms: 20_000 } } },
      undefined,
      { signal: controller.signal },
    );
    await eventually("the sleep call to reach the server", () => callsReached(dir).length, (n) => n === 3);
    controller.abort("enough");
    await assert.rejects(sleeping);

    const lines = await eventually("five lines", () => auditLines(log), (found) => found.length === 5);
    assert.deepEqual(lines.map((line) => [line.tool, line.outcome]), [
      ["echo", "ok"],
      ["fail", "tool error"],
      ["nope", "failed"],
      ["delete_item", "declined"],
      ["sleep", "cancelled"],
    ]);
    for (const line of lines) {
      assert.deepEqual(Object.keys(line), [...KEYS, "arguments"], JSON.stringify(line));
      assert.equal(line.session, lines[0].session, "one session");
      assert.equal(line.toolbox, "dev");
      assert.ok(typeof line.durationMs === "number" && line.durationMs >= 0);
      assert.ok(typeof line.resultBytes === "number" && line.resultBytes > 0);
      assert.ok(!Number.isNaN(Date.parse(String(line.time))));
    }
    assert.match(String(lines[0].session), /^[0-9a-f-]{36}$/);
    assert.equal(lines[0].resultBytes, new TextEncoder().encode(JSON.stringify(ok)).length, "the size of the result's JSON");
    assert.deepEqual(lines[0].arguments, { password: "***", note: "uses ***" });
    assert.ok(Number(lines[4].durationMs) < 20_000);
    const text = readFileSync(log, "utf8");
    assert.ok(!text.includes(ARGUMENT_SECRET) && !text.includes(ENV_SECRET), "no secret in the log");
    assert.equal(statSync(log).mode & 0o777, 0o600);

    // Concurrent calls: every line whole, one per call.
    await Promise.all(Array.from({ length: 30 }, (_, i) => useTool(session, "dev", "store", "echo", { i }).then(okText)));
    const all = await eventually("35 lines", () => readFileSync(log, "utf8").split("\n").filter(Boolean), (found) => found.length === 35);
    const echoed = all.slice(5).map((line) => (JSON.parse(line) as { arguments: { i: number } }).arguments.i);
    assert.deepEqual(echoed.sort((a, b) => a - b), Array.from({ length: 30 }, (_, i) => i));
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : error}\nworkbench stderr: ${session.stderr()}`, { cause: error });
  } finally {
    await session.close();
  }
});

test("audit log: a call naming a toolbox, server and tool with a megabyte each writes a line of under 2 KB", async () => {
  const dir = tempDir();
  const session = await startWorkbench(trustConfig(dir, undefined, { auditLog: "audit.jsonl" }));
  try {
    const log = `${session.dir}/audit.jsonl`;
    okText(await openToolbox(session, "dev"));
    const huge = (letter: string) => letter.repeat(1024 * 1024);
    errorText(await useTool(session, "dev", "store", huge("t"), {}));
    errorText(await useTool(session, "dev", huge("s"), "echo", {}));
    errorText(await useTool(session, huge("d"), "store", "echo", {}));
    await eventually("three lines", () => auditLines(log), (found) => found.length === 3);
    const text = readFileSync(log, "utf8");
    const longest = Math.max(...text.split("\n").map((line) => line.length));
    assert.ok(longest < 2_048, `a line of ${longest} characters`);
    assert.deepEqual(auditLines(log).map((line) => [String(line.toolbox).length < 300, line.server === "store" || String(line.server).endsWith("… [cut: 1048576 characters]"), line.outcome]), [
      [true, true, "failed"],
      [true, true, "failed"],
      [true, true, "failed"],
    ]);
  } finally {
    await session.close();
  }
});

test("audit log: the call subcommand is a session of its own, arguments left out unless asked; it cannot ask the user", async () => {
  const dir = tempDir();
  const log = `${dir}/audit.jsonl`;
  const configPath = writeConfig(dir, trustConfig(dir, ["delete_item"], { auditLog: log }));
  const ran = await runCli(["call", "--config", configPath, "dev", "store", "echo", JSON.stringify({ password: ARGUMENT_SECRET })]);
  assert.equal(ran.code, 0, ran.stderr);
  const refused = await runCli(["call", "--config", configPath, "dev", "store", "delete_item", "{}"]);
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(refused.stderr, /needs the user's approval \("confirm": \["delete_item"\] on server 'store' of toolbox 'dev'\), and there is no client to ask \(the call subcommand asks only in a terminal\)/);
  const lines = auditLines(log);
  assert.deepEqual(lines.map((line) => [line.tool, line.outcome]), [["echo", "ok"], ["delete_item", "declined"]]);
  assert.deepEqual(Object.keys(lines[0]), KEYS, "no arguments without auditArguments");
  assert.notEqual(lines[0].session, lines[1].session, "each command is a session");
  assert.ok(!readFileSync(log, "utf8").includes(ARGUMENT_SECRET));
  assert.deepEqual(callsReached(dir).map((c) => c.tool), ["echo"]);
});

test("call in a terminal: a tool that needs approval is asked y/N on the terminal; y calls it, anything else declines", {
  skip: existsSync("/usr/bin/script") ? false : "needs util-linux 'script' to give the command a terminal",
}, async () => {
  const dir = tempDir();
  const configPath = writeConfig(dir, trustConfig(dir, ["delete_item"], {}));
  const quoted = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;
  const inTerminal = (answer: string) => {
    const { command, args } = workbenchCommand(["call", "--config", configPath, "dev", "store", "delete_item", '{"id":"7"}']);
    return runToEnd("/usr/bin/script", ["-qec", [command, ...args].map(quoted).join(" "), "/dev/null"], { env: workbenchEnv(), input: answer, timeoutMs: 30_000 });
  };
  const declined = await inTerminal("n\n");
  assert.match(declined.stdout, /Allow the call of tool 'delete_item' of server 'store' \(toolbox 'dev'\) with these arguments/);
  assert.match(declined.stdout, /Allow this call\? \[y\/N\]/);
  assert.match(declined.stdout, /the user declined the call/);
  assert.deepEqual(callsReached(dir).map((c) => c.tool), []);
  const approved = await inTerminal("y\n");
  assert.doesNotMatch(approved.stdout, /declined/);
  assert.deepEqual(callsReached(dir).map((c) => c.tool), ["delete_item"]);
});

test("audit log: a log that cannot be written is reported once on stderr, and every call goes on", async () => {
  const dir = tempDir();
  writeFileSync(`${dir}/a-file`, "");
  const session = await startWorkbench(trustConfig(dir, "never", { auditLog: `${dir}/a-file/audit.jsonl` }));
  try {
    okText(await openToolbox(session, "dev"));
    for (let i = 0; i < 3; i++) okText(await useTool(session, "dev", "store", "echo", { i }));
    await Promise.all(Array.from({ length: 5 }, () => useTool(session, "dev", "store", "echo", {}).then(okText)));
    const said = await eventually("the report", () => session.stderr(), (text) => text.includes("Cannot write audit log"));
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(session.stderr().split("Cannot write audit log").length - 1, 1, said);
    assert.match(said, new RegExp(`mcp-workbench: Cannot write audit log '${dir}/a-file/audit.jsonl': .*\\(tool calls go on unrecorded; this is said once\\)`));
    assert.equal(callsReached(dir).length, 8);
  } finally {
    await session.close();
  }
});
