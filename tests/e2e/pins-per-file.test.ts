/**
 * Two configuration files in one folder (what `init` writes per project, or --out) each have their
 * own lock (issue 52): a server named the same in both but not the same server is pinned apart,
 * approving in one neither forgets nor withholds the other's, and the hints name the file (--config).
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fixtureServer } from "../helpers/runtime.ts";
import { removeTempDirs, tempDir } from "../helpers/workbench.ts";
import { runCli } from "../helpers/cli.ts";
import type { CheckReport } from "../../src/cli/check.ts";

after(removeTempDirs);

function project(dir: string, name: string, description: string): string {
  writeFileSync(`${dir}/${name}.json`, JSON.stringify({ description }));
  const server = fixtureServer("pinned-server.ts", { env: { PINNED_FILE: `${dir}/${name}.json` } });
  const path = `${dir}/workbench-config.${name}.json`;
  writeFileSync(path, JSON.stringify({ toolboxes: { default: { mcpServers: { memory: server } } } }));
  return path;
}

async function withheldOf(path: string): Promise<{ tool: string; approve: string }[]> {
  const check = await runCli(["check", "--config", path, "--json"]);
  assert.equal(check.code, 0, check.stderr);
  const report = JSON.parse(check.stdout) as CheckReport;
  return report.servers.flatMap((server) => server.withheld).map(({ tool, approve }) => ({ tool, approve }));
}

test("pins per file: two configurations in one folder keep their own lock; approving in one leaves the other's pins", async () => {
  const dir = tempDir();
  const a = project(dir, "alpha", "Greets in alpha.");
  const b = project(dir, "beta", "Greets in beta.");
  assert.deepEqual(await withheldOf(a), []);
  assert.deepEqual(await withheldOf(b), [], "beta's same-named server is pinned as its own, not withheld as changed");
  assert.ok(existsSync(`${dir}/workbench-lock.alpha.json`) && existsSync(`${dir}/workbench-lock.beta.json`));
  assert.ok(!existsSync(`${dir}/workbench-lock.json`));
  // alpha's server changes: only alpha withholds, and its hint names alpha's file.
  writeFileSync(`${dir}/alpha.json`, JSON.stringify({ description: "Greets in alpha, and more." }));
  assert.deepEqual(await withheldOf(a), [{ tool: "greet", approve: `mcp-workbench approve default memory greet --config ${a}` }]);
  assert.deepEqual(await withheldOf(b), []);
  const approved = await runCli(["approve", "default", "memory", "--yes", "--config", a]);
  assert.equal(approved.code, 0, approved.stderr);
  assert.deepEqual(await withheldOf(a), []);
  assert.deepEqual(await withheldOf(b), [], "approving alpha did not forget beta's pins");
  assert.match(readFileSync(`${dir}/workbench-lock.beta.json`, "utf8"), /Greets in beta\./);
});

test("pins per file: a folder's shared workbench-lock.json of before still pins a file's servers, and is copied on the first write", async () => {
  const dir = tempDir();
  const a = project(dir, "alpha", "Greets in alpha.");
  assert.deepEqual(await withheldOf(a), []);
  // As the lock was before: one workbench-lock.json for the folder.
  writeFileSync(`${dir}/workbench-lock.json`, readFileSync(`${dir}/workbench-lock.alpha.json`, "utf8"));
  rmSync(`${dir}/workbench-lock.alpha.json`);
  writeFileSync(`${dir}/alpha.json`, JSON.stringify({ description: "Greets in alpha, and more." }));
  const held = await withheldOf(a);
  assert.deepEqual(held.map((one) => one.tool), ["greet"], "the shared lock's pins still judge alpha's server");
  const approved = await runCli(["approve", "default", "memory", "--yes", "--config", a]);
  assert.equal(approved.code, 0, approved.stderr);
  assert.match(readFileSync(`${dir}/workbench-lock.alpha.json`, "utf8"), /Greets in alpha, and more\./);
  assert.match(readFileSync(`${dir}/workbench-lock.json`, "utf8"), /"Greets in alpha\."/, "the shared lock is left as it was");
});
