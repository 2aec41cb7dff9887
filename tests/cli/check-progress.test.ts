/** check's live progress: on stderr while servers start, only when stderr is a terminal. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { platform } from "#platform";
import type { Platform } from "../../src/platform/types.ts";
import { runCheck } from "../../src/cli/check.ts";
import { fx } from "../helpers/toolbox.ts";
import { tempDir, writeConfig } from "../helpers/workbench.ts";

/** The real platform with stderr and stdout captured, and stderr a terminal or not. */
function captured(terminal: boolean) {
  const out = { stderr: "", stdout: "" };
  const decoder = new TextDecoder();
  // Own properties over the real adapter (whose stdout is a getter that cannot be assigned).
  const fake = Object.create(platform, {
    stderrIsTerminal: { value: () => terminal },
    writeStderr: { value: (text: string) => void (out.stderr += text) },
    stdout: { value: new WritableStream<Uint8Array>({ write: (chunk) => void (out.stdout += decoder.decode(chunk)) }) },
  }) as Platform;
  return { fake, out };
}

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
