/** `mcp-workbench check` against real servers: exit codes, the JSON report, the table, nothing left running. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { fixtureServer, npmServer } from "../helpers/runtime.ts";
import { tempDir, writeConfig } from "../helpers/workbench.ts";
import { waitGone } from "../helpers/procs.ts";
import { processesWith, runCli } from "../helpers/cli.ts";
import { fx } from "../helpers/toolbox.ts";
import type { CheckReport } from "../../src/cli/check.ts";

/** Writes the config into a fresh folder, runs `check` on it, removes the folder. */
async function check(config: unknown, extra: string[] = []) {
  const dir = tempDir();
  try {
    const path = writeConfig(dir, config);
    return { path, ...(await runCli(["check", "--config", path, ...extra], { cwd: dir })) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A fixture server whose command line carries `marker`, so that a test can look for what is left. */
const marked = (marker: string, extra: Record<string, unknown> = {}, env: Record<string, string> = {}) => {
  const server = fx("A", extra, env) as { command: string; args: string[] };
  return { ...server, args: [...server.args, marker] };
};

test("check: good, missing, crashing, slow and too slow servers: exit 1, one JSON report, nothing left running", async () => {
  const marker = `check-marker-${Date.now()}-${Math.random()}`;
  const result = await check({
    toolboxes: {
      dev: {
        description: "d",
        mcpServers: {
          good: marked(marker, { toolFilters: ["echo", "fail", "nope"], env: { FIXTURE_LABEL: "A", MODE: "${CHECK_MODE:-fast}" } }),
          missing: { command: "no-such-command-xyz", env: { PATH: "/opt/none/bin" } },
          crashing: { command: "sh", args: ["-c", `echo "Error: Cannot find module '/srv/server.js'" >&2; exit 1 # ${marker}`] },
          slow: marked(marker, { connectTimeoutMs: 30_000 }, { FIXTURE_START_DELAY_MS: "1500" }),
          // Outlives its stdin (the shell sleeps on after the server leaves): only check's own shutdown ends it.
          lingering: (() => {
            const server = fx("L") as { command: string; args: string[]; env: Record<string, string> };
            return { command: "sh", args: ["-c", '"$0" "$@"; sleep 30', server.command, ...server.args, marker], env: server.env };
          })(),
        },
      },
      other: {
        description: "o",
        mcpServers: { stuck: { ...fixtureServer("silent-server.ts", { connectTimeoutMs: 1_000 }), args: [...fixtureServer("silent-server.ts").args, marker] } },
      },
    },
  }, ["--json"]);
  assert.equal(result.code, 1, result.stderr);
  const report = JSON.parse(result.stdout) as CheckReport;
  assert.equal(report.ok, false);
  assert.deepEqual(Object.keys(report), ["config", "ok", "servers"]);
  assert.equal(report.config, result.path, "the report names the file it checked");
  assert.deepEqual(report.servers.map((s) => `${s.toolbox}/${s.server}`), ["dev/good", "dev/missing", "dev/crashing", "dev/slow", "dev/lingering", "other/stuck"]);
  const [good, missing, crashing, slow, lingering, stuck] = report.servers;
  assert.equal(lingering.ok, true, JSON.stringify(lingering));
  assert.deepEqual(Object.keys(good), ["toolbox", "server", "transport", "ok", "tools", "tokens", "startMs", "warnings", "withheld"]);
  assert.deepEqual({ ...good, tokens: 0, startMs: 0 }, {
    toolbox: "dev",
    server: "good",
    transport: "stdio",
    ok: true,
    tools: 2,
    tokens: 0,
    startMs: 0,
    warnings: [
      "CHECK_MODE is not set or empty: the default of ${CHECK_MODE:-...} is used at toolboxes.dev.mcpServers.good.env.MODE",
      "toolFilters names 'nope', which the server does not have",
    ],
    withheld: [],
  });
  assert.ok(good.tokens !== null && good.tokens > 20 && good.tokens < 400, `tokens ${good.tokens}`);
  assert.deepEqual(Object.keys(missing), ["toolbox", "server", "transport", "ok", "tools", "tokens", "startMs", "error", "warnings", "withheld"]);
  assert.equal(missing.ok, false);
  assert.equal(missing.tokens, null, "a server that failed has no token estimate");
  assert.equal(missing.error, "Cannot start 'no-such-command-xyz': command not found on PATH '/opt/none/bin'");
  assert.equal(
    crashing.error,
    "server exited with code 1 during initialization; its stderr ended with: Error: Cannot find module '/srv/server.js'",
  );
  assert.equal(slow.ok, true, JSON.stringify(slow));
  assert.equal(slow.tools, 19);
  assert.ok(slow.startMs >= 1_400, `slow started in ${slow.startMs} ms`);
  assert.equal(stuck.error, "connection timeout after 1000 ms (connectTimeoutMs)");
  assert.ok(stuck.startMs >= 900, `stuck gave up after ${stuck.startMs} ms`);
  assert.deepEqual(await waitGone(processesWith(marker), 5_000), [], "check left processes behind");
});

test("check: every server ok: exit 0 and a table with a line per server; --toolbox checks one toolbox", async () => {
  const config = {
    toolboxes: {
      notes: { description: "n", mcpServers: { memory: npmServer("memory") } },
      dev: { description: "d", mcpServers: { fx: fx("A") } },
    },
  };
  const all = await check(config);
  assert.equal(all.code, 0, all.stderr);
  const lines = all.stdout.trimEnd().split("\n");
  assert.equal(lines[0], `Configuration: ${all.path}`);
  assert.match(lines[1], /^TOOLBOX +SERVER +TRANSPORT +STATUS +TOOLS +TOKENS +START$/);
  assert.match(lines[2], /^notes +memory +stdio +ok +9 +\d+ +\d+ ms$/);
  assert.match(lines[3], /^dev +fx +stdio +ok +19 +\d+ +\d+ ms$/);
  assert.equal(lines.at(-1), "All 2 server(s) ok");
  const one = await check(config, ["--toolbox", "dev", "--json"]);
  assert.equal(one.code, 0, one.stderr);
  assert.deepEqual((JSON.parse(one.stdout) as CheckReport).servers.map((s) => s.server), ["fx"]);
  const unknown = await check(config, ["--toolbox", "nope"]);
  assert.equal(unknown.code, 2);
  assert.equal(unknown.stderr, `mcp-workbench: Toolbox 'nope' not found in configuration '${unknown.path}'; available toolboxes: 'notes', 'dev'\n`);
});

test("check: a failing server's table lines carry the error; a bad file exits 2 listing every problem", async () => {
  const failed = await check({ toolboxes: { dev: { mcpServers: { q: { command: "sh", args: ["-c", "echo 'API_KEY is missing' >&2; exit 3"] } } } } });
  assert.equal(failed.code, 1);
  assert.ok(
    failed.stdout.includes("\n  error: server exited with code 3 during initialization; its stderr ended with: API_KEY is missing\n"),
    failed.stdout,
  );
  assert.equal(failed.stdout.trimEnd().split("\n").at(-1), "1 of 1 server(s) failed");
  const bad = await check({ toolboxes: { dev: { mcpServers: { a: { command: "" }, b: { command: "x", args: "y" } } } } });
  assert.equal(bad.code, 2);
  assert.equal(bad.stdout, "");
  assert.equal(
    bad.stderr,
    [
      `mcp-workbench: 2 problems in configuration file '${bad.path}':`,
      "  - Invalid configuration at toolboxes.dev.mcpServers.a.command: expected a non-empty string",
      "  - Invalid configuration at toolboxes.dev.mcpServers.b.args: expected an array of strings",
      "",
    ].join("\n"),
  );
});

test("serving: a bad file stops the workbench with every problem, and a client-shaped file is told how to convert it", async () => {
  const dir = tempDir();
  try {
    const path = writeConfig(dir, { mcpServers: { fs: { command: "npx" } }, callTimeoutMs: -1 });
    const result = await runCli(["--config", path], { cwd: dir });
    assert.equal(result.code, 2);
    assert.equal(
      result.stderr,
      [
        `mcp-workbench: 2 problems in configuration file '${path}':`,
        `  - Invalid configuration: missing key 'toolboxes' (this file has "mcpServers", as an MCP client's configuration does); ` +
        `expected {"toolboxes": {"NAME": {"description": "...", "mcpServers": {...}}}}; convert such a file with: mcp-workbench init --from '${path}'`,
        "  - Invalid configuration at callTimeoutMs: expected a positive integer of milliseconds (at most 2147483647)",
        "",
      ].join("\n"),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("check: a server of skills alone is not shown as empty: its skills are counted", async () => {
  const result = await check({ toolboxes: { dev: { mcpServers: { guide: fixtureServer("skills-server.ts") } } } }, ["--json"]);
  assert.equal(result.code, 0, result.stderr);
  const [server] = (JSON.parse(result.stdout) as CheckReport).servers;
  assert.equal(server.tools, 0);
  assert.ok((server.skills ?? 0) >= 2, result.stdout);
  const table = await check({ toolboxes: { dev: { mcpServers: { guide: fixtureServer("skills-server.ts") } } } });
  assert.match(table.stdout, /\n {2}skills: \d+, offered as skill:\/\/ resources \(and to a model through read_skill\)\n/);
});
