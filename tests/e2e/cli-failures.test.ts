/**
 * What `check` and `call` say when a server cannot be used: the server's own JSON-RPC error answer
 * (an unsupported protocol version) over stdio and HTTP, and the connection error itself for `call`.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { fixtureServer } from "../helpers/runtime.ts";
import { tempDir, withWorkbench, writeConfig } from "../helpers/workbench.ts";
import { errorText, fx, opened, openToolbox, useTool } from "../helpers/toolbox.ts";
import { runCli } from "../helpers/cli.ts";
import { startHttpFixture } from "../helpers/http-fixture.ts";
import type { CheckReport } from "../../src/cli/check.ts";

const REJECTED = "MCP error -32022: Unsupported protocol version";

async function inDir<T>(config: unknown, run: (path: string) => Promise<T>): Promise<T> {
  const dir = tempDir();
  try {
    return await run(writeConfig(dir, config));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("cli failures: a server that answers initialize with -32022 is reported with that error (stdio that exits 0, http url without SSE fallback)", async () => {
  const fixture = await startHttpFixture();
  try {
    const config = {
      toolboxes: {
        dev: {
          mcpServers: {
            stdio: { ...fixtureServer("line-server.ts"), env: { LINE_REJECT_VERSION: "1" } },
            auto: { url: fixture.url("/old") },
            http: { type: "http", url: fixture.url("/old") },
          },
        },
      },
    };
    const result = await inDir(config, (path) => runCli(["check", "--config", path, "--json"]));
    assert.equal(result.code, 1, result.stderr);
    const report = JSON.parse(result.stdout) as CheckReport;
    const errors = Object.fromEntries(report.servers.map((server) => [server.server, server.error]));
    assert.deepEqual(errors, { stdio: REJECTED, auto: REJECTED, http: REJECTED });
  } finally {
    await fixture.stop();
  }
});

test("cli failures: call says why the server could not be reached, not that the toolbox is not open", async () => {
  const config = { toolboxes: { dev: { mcpServers: { down: { type: "http", url: "http://127.0.0.1:1/mcp" } } } } };
  const result = await inDir(config, (path) => runCli(["call", "dev", "down", "echo", "--config", path]));
  assert.equal(result.code, 1);
  assert.match(
    result.stderr,
    /^mcp-workbench: Failed to connect to server 'down' in toolbox 'dev': cannot reach the server at http:\/\/127\.0\.0\.1:1\/mcp: \S.*\n$/,
  );
  const unknown = await inDir(config, (path) => runCli(["call", "dev", "dwn", "echo", "--config", path]));
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /^mcp-workbench: Server 'dwn' not found in toolbox 'dev' of '[^']+workbench-config\.json'\. Did you mean 'down'\?\n$/);
});

/** The absolute path of a program on the test's PATH (the workbench's PATH has none), if it runs. */
function executable(command: string, args: string[]): string | undefined {
  try {
    return execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim() || undefined;
  } catch {
    return undefined;
  }
}

test("cli failures: a real Node.js and Python crash at start is reported by the line that says what failed, in check, _errors and use_tool", async (t) => {
  const node = executable("node", ["-p", "process.execPath"]);
  const python = executable("python3", ["-c", "import sys; print(sys.executable)"]);
  if (!node) return t.skip("no node on PATH");
  const servers: Record<string, unknown> = { node: { command: node, args: ["/nonexistent/server.js"] } };
  if (python) servers.python = { command: python, args: ["-c", "import json\nprint('starting')\njson.loads('{')"] };
  const config = { toolboxes: { dev: { mcpServers: servers } } };
  const result = await inDir(config, (path) => runCli(["check", "--config", path, "--json"]));
  assert.equal(result.code, 1, result.stderr);
  const errors = Object.fromEntries((JSON.parse(result.stdout) as CheckReport).servers.map((server) => [server.server, server.error]));
  const nodeSaid = new RegExp(
    "^server exited with code 1 during initialization; its stderr said: Error: Cannot find module '/nonexistent/server\\.js' … " +
      "requireStack: \\[\\] \\| Node\\.js v\\d+\\.\\d+\\.\\d+$",
  );
  assert.match(errors.node ?? "", nodeSaid);
  if (python) {
    // Python's exception is the traceback's last line: the last lines hold it.
    assert.match(
      errors.python ?? "",
      /^server exited with code 1 during initialization; its stderr ended with: .+ \| json\.decoder\.JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 \(char 1\)$/,
    );
  }
  // A toolbox with one server up, so that open_toolbox succeeds and lists the others in _errors.
  await withWorkbench({ toolboxes: { dev: { mcpServers: { fx: fx("A"), ...servers } } } }, async (session) => {
    const value = opened(await openToolbox(session, "dev"));
    assert.match(value._errors?.[0] ?? "", new RegExp(`^Failed to connect to server 'node' in toolbox 'dev': ${nodeSaid.source.slice(1)}`));
    const text = errorText(await useTool(session, "dev", "node", "echo"));
    assert.match(text, new RegExp(`^Error executing tool 'echo' in server 'node' \\(toolbox 'dev'\\): failed to start: ${nodeSaid.source.slice(1)}`));
  });
  if (!python) t.skip("no python3 on PATH: the Python case was left out");
});

/**
 * A wrapper of a remote server as mcp-remote is: Node's fetch to a port nobody listens on, its
 * error logged with a `[pid]` prefix (a stack, then `[cause]: …`, then the cause's fields), exit 1.
 */
const WRAPPER = `const server = require("node:net").createServer().listen(0, "127.0.0.1", () => {
  const port = server.address().port;
  server.close(() => fetch("http://127.0.0.1:" + port + "/mcp").catch((error) => {
    console.error("[" + process.pid + "] Connection error:", error);
    process.exit(1);
  }));
});`;

test("cli failures: a wrapper's (mcp-remote's) failure to reach its remote server is reported by its error and cause line, in check", async (t) => {
  const node = executable("node", ["-p", "process.execPath"]);
  if (!node) return t.skip("no node on PATH");
  const config = { toolboxes: { dev: { mcpServers: { remote: { command: node, args: ["-e", WRAPPER] } } } } };
  const result = await inDir(config, (path) => runCli(["check", "--config", path, "--json"]));
  assert.equal(result.code, 1, result.stderr);
  const [server] = (JSON.parse(result.stdout) as CheckReport).servers;
  assert.match(
    server.error ?? "",
    /^server exited with code 1 during initialization; its stderr said: Connection error: TypeError: fetch failed … \[cause\]: Error: connect ECONNREFUSED 127\.0\.0\.1:\d+$/,
  );
});

test("cli failures: a server that crashes during a call names its exit and its last stderr lines, in call and in use_tool", async () => {
  const crasher = fx("A", {}, { FIXTURE_FAILURES: "1" });
  const config = { toolboxes: { dev: { mcpServers: { fx: crasher } } } };
  const args = JSON.stringify({ text: "query 1 done\nError: lost the database", code: 3 });
  const said = "server exited with code 3; its stderr ended with: query 1 done | Error: lost the database";
  const result = await inDir(config, (path) => runCli(["call", "dev", "fx", "crash", args, "--config", path]));
  assert.equal(result.code, 1);
  assert.equal(result.stderr, `mcp-workbench: Error executing tool 'crash' in server 'fx' (toolbox 'dev'): ${said}\n`);
  await withWorkbench(config, async (session) => {
    opened(await openToolbox(session, "dev"));
    const text = errorText(await useTool(session, "dev", "fx", "crash", { text: "query 1 done\nError: lost the database", code: 3 }));
    assert.equal(text, `Error executing tool 'crash' in server 'fx' (toolbox 'dev'): ${said}`);
  });
});
