/**
 * The clue of a server that never starts (issue 41): a usage line on stdout instead of MCP is
 * shown with the timeout, not only in the serving log.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { runCli } from "../helpers/cli.ts";
import { removeTempDirs, tempDir, writeConfig } from "../helpers/workbench.ts";

after(removeTempDirs);

test("start clues: a server printing a usage line on stdout and waiting shows that line with the timeout in check", async () => {
  const usage = { command: "sh", args: ["-c", "echo 'Usage: acme-server [--port N]'; sleep 30"], connectTimeoutMs: 1000 };
  const path = writeConfig(tempDir(), { toolboxes: { dev: { description: "d", mcpServers: { usage } } } });
  const done = await runCli(["check", "--config", path]);
  assert.equal(done.code, 1);
  assert.ok(
    done.stdout.includes(
      `error: connection timeout after 1000 ms (connectTimeoutMs); it wrote on stdout, where only MCP messages may go: "Usage: acme-server [--port N]" ` +
        "(does it need an argument to serve MCP over stdio?)",
    ),
    done.stdout,
  );
});
