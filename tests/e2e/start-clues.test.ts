/**
 * The clue of a server that never starts (issue 41): a usage line on stdout instead of MCP is
 * shown with the timeout, not only in the serving log; started by hand in a terminal, the
 * workbench says it is an MCP server waiting for a client, and what to run instead.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { runCli } from "../helpers/cli.ts";
import { runToEnd } from "../helpers/process.ts";
import { workbenchCommand, workbenchEnv } from "../helpers/runtime.ts";
import { fx } from "../helpers/toolbox.ts";
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

const quoted = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

test("start clues: started by hand in a terminal (stdin a TTY) it says it is an MCP server waiting for a client; from a client it does not", {
  skip: existsSync("/usr/bin/script") ? false : "needs util-linux 'script' to give the workbench a terminal",
}, async () => {
  const path = writeConfig(tempDir(), { toolboxes: { dev: { description: "d", mcpServers: { a: fx("A") } } } });
  const { command, args } = workbenchCommand(["--config", path]);
  // script gives the command a terminal as stdin; ours ends at once, so the workbench sees the end and stops.
  const typed = await runToEnd("/usr/bin/script", ["-qec", [command, ...args].map(quoted).join(" "), "/dev/null"], { env: workbenchEnv(), timeoutMs: 30_000 });
  const said = typed.stdout.replaceAll("\r", "");
  assert.ok(
    said.includes(`mcp-workbench: This is an MCP server: it waits for an MCP client on stdin, not for typing. To try it, run 'mcp-workbench check --config ${path}'`),
    said,
  );
  // From a pipe (an MCP client), no such line.
  const piped = await runToEnd(command, args, { env: workbenchEnv(), timeoutMs: 30_000 });
  assert.doesNotMatch(piped.stderr, /This is an MCP server/);
  assert.match(piped.stderr, /serving 1 toolbox/);
});
