/**
 * A server that fails at start (issue 27, point 9) is started once per attempt: the protocol probe
 * and initialize share that one start, so its stderr and what starting does happen once. The
 * server here notes each start in a file and says why it fails on stderr, as Node does for a
 * missing script.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { removeTempDirs, startWorkbench, tempDir, writeConfig } from "../helpers/workbench.ts";
import { openToolbox } from "../helpers/toolbox.ts";
import { runCli } from "../helpers/cli.ts";

after(removeTempDirs);

const WHY = "Error: Cannot find module '/srv/server.js'";

function failingConfig(starts: string) {
  // It fails a moment after starting, as a runtime that loads first does: while it is being probed.
  const script = `echo started >> "$STARTS"; sleep 0.3; echo "${WHY}" >&2; exit 1`;
  return { toolboxes: { dev: { mcpServers: { broken: { command: "sh", args: ["-c", script], env: { STARTS: starts } } } } } };
}

const startsIn = (file: string) => existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").length : 0;
const copies = (text: string) => text.split("\n").filter((line) => line.includes(WHY) && line.startsWith("[dev/broken]")).length;

test("failed start: serving starts a server that fails once per attempt, with one copy of its stderr", async () => {
  const starts = `${tempDir()}/starts`;
  // A fresh cache: nothing is known of the server's era, so the first attempt probes it.
  const session = await startWorkbench(failingConfig(starts), { WORKBENCH_CACHE_DIR: `${tempDir()}/cache` });
  try {
    const first = await openToolbox(session, "dev");
    assert.match(JSON.stringify(first), /Cannot find module/);
    assert.equal(startsIn(starts), 1, session.stderr());
    assert.equal(copies(session.stderr()), 1, session.stderr());
    await openToolbox(session, "dev");
    assert.equal(startsIn(starts), 2, session.stderr());
    assert.equal(copies(session.stderr()), 2, session.stderr());
  } finally {
    await session.close();
  }
});

test("failed start: check starts a server that fails once, and reports why", async () => {
  const dir = tempDir();
  const starts = `${dir}/starts`;
  const result = await runCli(["check", "--json", "--config", writeConfig(dir, failingConfig(starts))], {
    env: { WORKBENCH_CACHE_DIR: `${dir}/cache` },
  });
  assert.equal(result.code, 1, result.stderr);
  assert.match(JSON.parse(result.stdout).servers[0].error, /Cannot find module/);
  assert.equal(startsIn(starts), 1);
});
