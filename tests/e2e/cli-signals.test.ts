/**
 * Ctrl-C on a command that starts servers (`call`, `check`) stops them: every process it started,
 * found by walking /proc from its pid, is gone within 2 s of the signal, and it exits 130. Here one
 * server is busy with the call and another hangs at start; SIGHUP to `tools` likewise (exit 129).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import process from "node:process";
import { fixtureServer, workbenchCommand, workbenchEnv } from "../helpers/runtime.ts";
import { descendants, isAlive, waitGone } from "../helpers/procs.ts";
import { eventually, fx, sleep } from "../helpers/toolbox.ts";
import { tempDir, writeConfig } from "../helpers/workbench.ts";

const CONFIG = {
  toolboxes: {
    t: { description: "busy and hanging", mcpServers: { fx: fx("A"), hangs: fixtureServer("silent-server.ts") } },
  },
};

const EXIT = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

async function interrupted(args: string[], signal: keyof typeof EXIT = "SIGINT"): Promise<void> {
  const dir = tempDir();
  try {
    const { command, args: full } = workbenchCommand([...args, "--config", writeConfig(dir, CONFIG)]);
    const child = spawn(command, full, { env: workbenchEnv(), cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
    let started: number[] = [];
    // Deno's child_process reports an exit code of 128 + n as the signal n.
    const exited = new Promise<string>((resolve) => child.on("exit", (code, signal) => resolve(`${code ?? signal}`)));
    try {
      // Both servers running, and the call sent (the fixture answers initialize within a second).
      await eventually("both servers", () => descendants(child.pid!).map((p) => p.cmdline).join("\n"), (found) =>
        found.includes("fixture-server.ts") && found.includes("silent-server.ts"), 20_000);
      await sleep(1_500);
      started = descendants(child.pid!).map((p) => p.pid);
      child.kill(signal);
      const left = await waitGone(started, 2_000);
      assert.deepEqual(left, [], `still running 2 s after ${signal}: ${left.join(", ")}\n${stderr}`);
      const code = await Promise.race([exited, sleep(15_000).then(() => "still running")]);
      assert.ok(code === String(EXIT[signal]) || code === signal, `exit: ${code}\n${stderr}`);
      // The exit can come before the last of stderr has been read: awaited, not read at once.
      await eventually("the stop said on stderr", () => stderr, (text) => text.includes(`Stopping its servers (${signal})`));
    } finally {
      child.kill("SIGKILL");
      for (const pid of started.filter(isAlive)) process.kill(pid, "SIGKILL");
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("SIGINT to call: no process it started outlives it", () => interrupted(["call", "t", "fx", "sleep", '{"ms": 60000}']));

test("SIGINT to check: no process it started outlives it", () => interrupted(["check"]));

test("SIGHUP to tools: the same", () => interrupted(["tools", "t"], "SIGHUP"));
