/**
 * The single-file executables: each, copied alone into an empty directory and run with an empty
 * environment (`env -i`), serves a real MCP session. The Deno one needs `denort`, which `deno
 * compile` downloads unless DENORT_BIN names one; where none can be had, its tests skip, saying why.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import process from "node:process";
import pkg from "../../package.json" with { type: "json" };
import { Client, StdioClientTransport } from "../helpers/sdk.ts";
import { errorText, okText, opened } from "../helpers/toolbox.ts";
import { fixture, npmServer, removeAtExit, repoRoot, runScript } from "../helpers/runtime.ts";
import { writeConfig } from "../helpers/workbench.ts";

const bun = `${repoRoot}/node_modules/.bin/bun`;
const deno = `${repoRoot}/node_modules/.bin/deno`;

type Build = { path: string } | { skip: string };

function buildBun(): Build {
  const dir = mkdtempSync(`${tmpdir()}/workbench-bun-exe-`);
  const built = spawnSync(bun, [`${repoRoot}/scripts/build.ts`, "--outfile", `${dir}/mcp-workbench`], { encoding: "utf8" });
  assert.equal(built.status, 0, built.stderr);
  return { path: `${dir}/mcp-workbench` };
}

/** Runs the real `deno task compile`; a missing denort is the one failure that skips. */
function buildDeno(): Build {
  const output = `${repoRoot}/dist/mcp-workbench-deno`;
  rmSync(output, { force: true });
  const built = spawnSync(deno, ["task", "compile"], {
    cwd: repoRoot,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
    timeout: 120_000,
  });
  const log = `${built.stdout}${built.stderr}`;
  if (built.status !== 0) {
    if (/denort/i.test(log)) {
      return { skip: `deno compile could not get its runtime (denort): set DENORT_BIN to a denort binary` };
    }
    assert.fail(`deno task compile failed:\n${log}`);
  }
  const version = spawnSync(output, ["--version"], { encoding: "utf8" }).stdout;
  if (version.startsWith("deno ")) {
    return { skip: `DENORT_BIN names a deno binary, not denort: the result runs as plain deno` };
  }
  const dir = mkdtempSync(`${tmpdir()}/workbench-deno-exe-`);
  copyFileSync(output, `${dir}/mcp-workbench-deno`);
  return { path: `${dir}/mcp-workbench-deno` };
}

const builds: Record<string, Build> = { bun: buildBun(), deno: buildDeno() };
// The copies in temporary directories go at the end (dist/ is the build's own). Not in `after`:
// Deno skips it when the file's last test is ignored, as the Deno executable's are without denort.
for (const build of Object.values(builds)) {
  if ("path" in build) removeAtExit(build.path.slice(0, build.path.lastIndexOf("/")));
}
for (const [name, build] of Object.entries(builds)) {
  if ("skip" in build) console.log(`SKIPPED: the ${name} executable's tests: ${build.skip}`);
}

for (const [name, build] of Object.entries(builds)) {
  const skip = "skip" in build ? build.skip : false;

  test(`executable (${name}): --version prints the version compiled in`, { skip }, () => {
    if ("skip" in build) return;
    const shown = spawnSync("/usr/bin/env", ["-i", build.path, "--version"], { encoding: "utf8", cwd: tmpdir() });
    assert.equal(shown.status, 0, shown.stderr);
    assert.equal(shown.stdout, `mcp-workbench ${pkg.version}\n`);
  });

  test(`executable (${name}): alone in an empty directory with env -i, serves a real session`, { skip }, async () => {
    if ("skip" in build) return;
    const dir = mkdtempSync(`${tmpdir()}/workbench-alone-`);
    copyFileSync(build.path, `${dir}/mcp-workbench`);
    const fixtureRun = runScript(fixture("fixture-server.ts"));
    const path = writeConfig(dir, {
      toolboxes: {
        dev: {
          description: "built executable",
          mcpServers: {
            fx: { ...fixtureRun, env: { FIXTURE_LABEL: "alone" } },
            everything: npmServer("everything"),
          },
        },
      },
    });
    const transport = new StdioClientTransport({
      command: "/usr/bin/env",
      args: ["-i", `${dir}/mcp-workbench`, "--config", path],
      cwd: dir,
      stderr: "ignore",
    });
    const client = new Client({ name: "executable-test", version: "1" });
    try {
      await client.connect(transport);
      assert.deepEqual(client.getServerVersion(), { name: "mcp-workbench", version: pkg.version });
      const open = opened(await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } }) as never);
      assert.equal(open.servers_connected, 2);
      const echo = await client.callTool({
        name: "use_tool",
        arguments: { tool: { toolbox: "dev", server: "fx", name: "echo" }, arguments: { text: "hi" } },
      });
      assert.equal(okText(echo as never), "alone: hi");
      const reference = await client.callTool({
        name: "use_tool",
        arguments: { tool: { toolbox: "dev", server: "everything", name: "echo" }, arguments: { message: "ref" } },
      });
      assert.equal(okText(reference as never), "Echo: ref");
      const missing = await client.callTool({
        name: "use_tool",
        arguments: { tool: { toolbox: "dev", server: "fx", name: "nope" } },
      });
      assert.equal(errorText(missing as never), "Error executing tool: Tool 'nope' not found in server 'fx' (toolbox 'dev')");
    } finally {
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
