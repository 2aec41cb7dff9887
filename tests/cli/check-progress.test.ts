/** check's live progress: on stderr while servers start, only when stderr is a terminal. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { runCheck } from "../../src/cli/check.ts";
import { capturedPlatform } from "../helpers/captured-platform.ts";
import { fx } from "../helpers/toolbox.ts";
import { tempDir, writeConfig } from "../helpers/workbench.ts";

const captured = (terminal: boolean) => capturedPlatform({ terminal });

test("check: on a terminal, stderr shows how many servers have started, then the line is cleared", async () => {
  const dir = tempDir();
  try {
    const configPath = writeConfig(dir, { toolboxes: { dev: { mcpServers: { a: fx("A"), b: fx("B") } } } });
    const tty = captured(true);
    assert.equal(await runCheck(tty.fake, { configPath, options: {}, positionals: [] }), 0);
    const frames = tty.out.stderr.split("\r\x1b[K").filter((frame) => frame !== "");
    assert.deepEqual(frames, ["Starting servers: 0 of 2 done", "Starting servers: 1 of 2 done", "Starting servers: 2 of 2 done"]);
    assert.ok(tty.out.stderr.endsWith("\r\x1b[K"));
    assert.ok(tty.out.stdout.endsWith("All 2 server(s) ok\n"), tty.out.stdout);
    const piped = captured(false);
    assert.equal(await runCheck(piped.fake, { configPath, options: {}, positionals: [] }), 0);
    assert.equal(piped.out.stderr, "");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
