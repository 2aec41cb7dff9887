/**
 * Under Wine: `init --from` a Windows client's file (a UTF-8 mark, CRLF, backslashes, spaces), with
 * the executable in a folder whose name has a space: the block it prints starts the workbench, and
 * the line it gives to check the file runs in cmd.exe.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { linkSync, mkdirSync, writeFileSync } from "node:fs";
import { cleanUp, connectThroughRelay, described, place, type Place, runWine, suite, textOf, waitUntagged, wineEnv, winPath } from
  "./wine.ts";

/** Runs init as a user of Claude Desktop on Windows would, and returns what it printed. */
async function initFromClaudeDesktop(at: Place) {
  mkdirSync(`${at.dir}/Mcp Tools`);
  // A hard link costs nothing, where a copy would cost 120 MB.
  linkSync(suite.workbench, `${at.dir}/Mcp Tools/mcp-workbench.exe`);
  mkdirSync(`${at.dir}/Claude`);
  const fx = { command: winPath(suite.host), args: ["server", "--tag", at.tag], env: { FIXTURE_LABEL: "imported" } };
  const client = { mcpServers: { fx } };
  const text = `\uFEFF${JSON.stringify(client, null, 2).replaceAll("\n", "\r\n")}\r\n`;
  writeFileSync(`${at.dir}/Claude/claude_desktop_config.json`, text);
  const exe = at.win("Mcp Tools\\mcp-workbench.exe");
  const out = at.win("out dir\\workbench-config.json");
  const ran = await runWine([exe, "init", "--from", at.win("Claude\\claude_desktop_config.json"), "--config", out], { env: wineEnv(at) });
  assert.equal(ran.code, 0, described(ran));
  return { exe, out, stdout: ran.stdout };
}

test("wine: init --from a Windows client's file prints a block that starts the workbench, which answers, serves the import", async () => {
  const at = place();
  try {
    const { exe, out, stdout } = await initFromClaudeDesktop(at);
    const paste = stdout.indexOf("Then paste this into");
    assert.ok(paste > 0, stdout);
    const block = JSON.parse(stdout.slice(stdout.indexOf("\n", paste)));
    const { command, args } = block.mcpServers.workbench;
    const { client } = await connectThroughRelay(args, { env: wineEnv(at), command });
    assert.equal(client.getServerVersion()?.name, "mcp-workbench");
    await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "default" } });
    const tool = { toolbox: "default", server: "fx", name: "echo" };
    const echoed = await client.callTool({ name: "use_tool", arguments: { tool, arguments: { text: "hi" } } });
    assert.equal(textOf(echoed), "imported: hi");
    await client.close();
    assert.deepEqual({ command, args }, { command: exe, args: ["--config", out] });
    assert.deepEqual(await waitUntagged(at.tag, 15_000), []);
  } finally {
    cleanUp(at);
  }
});

test("wine: the line init gives to check the file runs as it is in cmd.exe", async () => {
  const at = place();
  try {
    const { stdout } = await initFromClaudeDesktop(at);
    const line = stdout.match(/^Check it: (.*)$/m)?.[1];
    assert.ok(line, stdout);
    // As a user pastes it at cmd's prompt: a batch file reads a line the same way.
    writeFileSync(`${at.dir}/check.cmd`, `@${line}\r\n`);
    const check = await runWine(["cmd", "/c", "check.cmd"], { env: wineEnv(at), cwd: at.dir });
    assert.equal(check.code, 0, `${line}\n${described(check)}`);
    assert.match(check.stdout, /All 1 server\(s\) ok/);
    assert.deepEqual(await waitUntagged(at.tag, 10_000), []);
  } finally {
    cleanUp(at);
  }
});
