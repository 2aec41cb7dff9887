/**
 * What `check` and `call` say when a server cannot be used: the server's own JSON-RPC error answer
 * (an unsupported protocol version) over stdio and HTTP, and the connection error itself for `call`.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { fixtureServer } from "../helpers/runtime.ts";
import { tempDir, writeConfig } from "../helpers/workbench.ts";
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
  assert.equal(unknown.stderr, "mcp-workbench: Server 'dwn' not found in toolbox 'dev'. Did you mean 'down'?\n");
});
