/** The workbench as a client sees it: a real process over stdio, driven by the official SDK client. */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import pkg from "../../package.json" with { type: "json" };
import { fixtureServer, workbenchCommand, workbenchEnv } from "../helpers/runtime.ts";
import { runToEnd } from "../helpers/process.ts";
import { existsSync, readFileSync } from "node:fs";
import { removeTempDirs, withWorkbench, tempDir, writeConfig } from "../helpers/workbench.ts";
import { INITIALIZE, INITIALIZED } from "../helpers/raw-session.ts";

// The folders this file's tests made with tempDir() or spawnLog() go once they are done.
after(removeTempDirs);

const env = workbenchEnv();

/**
 * Writes the lines to a fresh workbench's stdin, closes it, and returns how the process ended
 * with its answers sorted by id (JSON-RPC lets them come in any order).
 */
async function exchange(lines: string[], config: unknown = { toolboxes: {} }) {
  const path = writeConfig(tempDir(), config);
  const { command, args } = workbenchCommand(["--config", path]);
  const done = await runToEnd(command, args, { input: lines.join("\n") + "\n", env });
  assert.equal(done.code, 0, done.stderr);
  const replies = done.stdout.trim().split("\n").map((line) => JSON.parse(line)).sort((a, b) => a.id - b.id);
  return { ...done, replies };
}

test("e2e: initialize reports name, version, tools capability and instructions listing toolboxes", async () => {
  await withWorkbench({
    toolboxes: {
      dev: { description: "Development tools", mcpServers: { a: fixtureServer("fixture-server.ts"), b: fixtureServer("fixture-server.ts") } },
      docs: { description: "Documentation", mcpServers: { c: fixtureServer("fixture-server.ts") } },
    },
  }, async (session) => {
    assert.deepEqual(session.client.getServerVersion(), { name: "mcp-workbench", version: pkg.version });
    assert.ok(session.client.getServerCapabilities()?.tools);
    const instructions = session.client.getInstructions() ?? "";
    assert.match(instructions, /^- dev: Development tools \(2 servers\)$/m);
    assert.match(instructions, /^- docs: Documentation \(1 server\)$/m);
    assert.ok(instructions.includes('open_toolbox {"toolbox_name": "dev"}'), instructions);
    assert.ok(instructions.includes('use_tool {"tool": {"toolbox": "dev", "server": "<source_server>", "name": "<name>"}'));
    const { tools } = await session.client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["open_toolbox", "use_tool"]);
  });
});

test("e2e: with no toolboxes the instructions say so and name the config path", async () => {
  await withWorkbench({ toolboxes: {} }, async (session) => {
    const instructions = session.client.getInstructions() ?? "";
    assert.equal(
      instructions,
      `MCP Workbench: no toolboxes are configured. Add toolboxes to ${session.dir}/workbench-config.json: they apply without a restart.`,
    );
  });
});

test("e2e: closing stdin after a real exchange makes the process exit 0, stdout carries only JSON-RPC", async () => {
  const started = performance.now();
  const { replies } = await exchange([INITIALIZE, INITIALIZED, '{"jsonrpc":"2.0","id":2,"method":"tools/list"}']);
  assert.deepEqual(replies.map((message) => message.id), [1, 2]);
  assert.equal(replies[0].result.serverInfo.name, "mcp-workbench");
  assert.ok(performance.now() - started < 15_000);
});

test("e2e: --version and --help print to stdout and exit 0", async () => {
  const version = workbenchCommand(["--version"]);
  const shown = await runToEnd(version.command, version.args, { env });
  assert.equal(shown.code, 0);
  assert.equal(shown.stdout, `mcp-workbench ${pkg.version}\n`);
  const help = workbenchCommand(["--help"]);
  const helped = await runToEnd(help.command, help.args, { env });
  assert.equal(helped.code, 0);
  assert.match(helped.stdout, /Usage:\n {2}mcp-workbench \[--config PATH\]/);
});

test("e2e: an unknown flag exits 2 with one message on stderr and nothing on stdout", async () => {
  const { command, args } = workbenchCommand(["--bogus"]);
  const done = await runToEnd(command, args, { env });
  assert.equal(done.code, 2);
  assert.equal(done.stdout, "");
  assert.equal(done.stderr, "mcp-workbench: Unknown option '--bogus' (see --help)\n");
});

test("e2e: a missing or invalid config exits 2 with a clear message and nothing on stdout", async () => {
  const dir = tempDir();
  const missing = workbenchCommand(["--config", `${dir}/nope.json`]);
  const notFound = await runToEnd(missing.command, missing.args, { env });
  assert.equal(notFound.code, 2);
  assert.equal(notFound.stdout, "");
  assert.match(notFound.stderr, new RegExp(`^mcp-workbench: Configuration file not found: '${dir}/nope.json'`));

  const path = writeConfig(dir, { toolboxes: { dev: { mcpServers: { fs: { command: "x", args: "oops" } } } } });
  const bad = workbenchCommand(["--config", path]);
  const invalid = await runToEnd(bad.command, bad.args, { env });
  assert.equal(invalid.code, 2);
  assert.equal(invalid.stdout, "");
  assert.equal(
    invalid.stderr,
    `mcp-workbench: In configuration file '${path}': Invalid configuration at toolboxes.dev.mcpServers.fs.args: expected an array of strings\n`,
  );
});

test("e2e: the config path comes from WORKBENCH_CONFIG when --config is absent", async () => {
  const dir = tempDir();
  const path = writeConfig(dir, { toolboxes: { viaenv: { mcpServers: {} } } });
  const { command, args } = workbenchCommand([]);
  const input = `${INITIALIZE}\n`;
  const done = await runToEnd(command, args, { input, env: { ...env, WORKBENCH_CONFIG: path } });
  assert.equal(done.code, 0, done.stderr);
  assert.match(JSON.parse(done.stdout).result.instructions, /- viaenv \(0 servers\)/);
});

test("e2e: the workbench runs with no node on its PATH, and serves", async () => {
  await withWorkbench({ toolboxes: { dev: { description: "d", mcpServers: { fx: fixtureServer("fixture-server.ts") } } } }, async (session) => {
    // The environment of the running process itself, not what a helper meant to give it.
    const environ = readFileSync(`/proc/${session.pid}/environ`, "utf8").split("\0");
    const path = environ.find((entry) => entry.startsWith("PATH="))?.slice("PATH=".length);
    assert.ok(path !== undefined, environ.join("\n"));
    assert.deepEqual(path.split(":").filter((dir) => existsSync(`${dir}/node`)), [], `PATH=${path}`);
    const opened = await session.call("open_toolbox", { toolbox_name: "dev" });
    assert.equal(opened.isError, undefined, JSON.stringify(opened));
  });
});

test("e2e: garbage on stdin is answered as JSON-RPC says and logged by size only; an unknown method gets -32601", async () => {
  const done = await exchange([
    "this is not json",
    '{"valid": "json", "but": "not JSON-RPC"}',
    INITIALIZE,
    INITIALIZED,
    '{"jsonrpc":"2.0","id":2,"method":"no/such/method"}',
    '{"jsonrpc":"2.0","id":3,"method":"tools/list"}',
  ]);
  const { replies } = done;
  assert.deepEqual(replies.map((reply) => reply.id), [null, null, 1, 2, 3]);
  assert.deepEqual(replies.slice(0, 2).map((reply) => reply.error.code), [-32700, -32600]);
  assert.equal(replies[3].error.code, -32601);
  assert.equal(replies[4].result.tools.length, 2);
  // A client's line may hold secrets: only its size is logged.
  assert.match(done.stderr, /Ignored a line that is not JSON: 16 bytes/);
  assert.ok(!done.stderr.includes("this is not json"));
  assert.match(done.stderr, /Refused a message \(40 bytes\): Invalid Request: jsonrpc must be "2\.0"/);
});

test("e2e: a malformed tools/call or an unknown tool gets a JSON-RPC error that says what is wrong", async () => {
  const { replies } = await exchange([
    INITIALIZE,
    INITIALIZED,
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"open_toolbox","arguments":"not an object"}}',
    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}',
  ]);
  assert.deepEqual(replies[1].error, { code: -32602, message: "Invalid params: params.arguments must be an object" });
  assert.deepEqual(replies[2].error, {
    code: -32602,
    message: "Unknown tool 'no_such_tool'; available tools: 'open_toolbox', 'use_tool'",
  });
});
