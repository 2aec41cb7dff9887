/**
 * The shipped example (examples/workbench-config.json) works as shipped on a fresh HOME: `check`
 * starts every server, and the files and notes servers do their work there (issue 52: the
 * filesystem server's folder did not exist on a fresh home, so it failed to start).
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { npmServer, repoRoot } from "../helpers/runtime.ts";
import { runCli } from "../helpers/cli.ts";
import { removeTempDirs, tempDir, writeConfig } from "../helpers/workbench.ts";

after(removeTempDirs);

interface ServerEntry {
  command: string;
  args: string[];
  [key: string]: unknown;
}

/** `npx -y @modelcontextprotocol/server-X ARGS` run from node_modules, the rest of the entry as shipped. */
function local(entry: ServerEntry): ServerEntry {
  const [, pkg, ...args] = entry.args;
  const name = /^@modelcontextprotocol\/server-(everything|memory|filesystem)$/.exec(pkg)?.[1];
  assert.ok(entry.command === "npx" && entry.args[0] === "-y" && name, `a shipped server this test knows: ${JSON.stringify(entry)}`);
  return { ...entry, ...npmServer(name as "everything" | "memory" | "filesystem", args) };
}

test("example: the shipped configuration's servers start and work on a fresh HOME", async () => {
  const shipped = JSON.parse(readFileSync(`${repoRoot}/examples/workbench-config.json`, "utf8"));
  for (const toolbox of Object.values(shipped.toolboxes) as { mcpServers: Record<string, ServerEntry> }[]) {
    for (const [name, entry] of Object.entries(toolbox.mcpServers)) toolbox.mcpServers[name] = local(entry);
  }
  const root = tempDir();
  const home = `${root}/home`;
  mkdirSync(home);
  const config = writeConfig(root, shipped);
  const env = { HOME: home, USERPROFILE: home };
  const check = await runCli(["check", "--config", config], { env });
  assert.equal(check.code, 0, `${check.stdout}${check.stderr}`);
  const listed = await runCli(["call", "dev", "filesystem", "list_allowed_directories", "{}", "--config", config], { env });
  assert.equal(listed.code, 0, `${listed.stdout}${listed.stderr}`);
  const noted = await runCli([
    "call", "dev", "memory", "create_entities",
    JSON.stringify({ entities: [{ name: "Ada", entityType: "person", observations: ["writes programs"] }] }),
    "--config", config,
  ], { env });
  assert.equal(noted.code, 0, `${noted.stdout}${noted.stderr}`);
  const found = await runCli(["call", "dev", "memory", "search_nodes", '{"query":"Ada"}', "--config", config], { env });
  assert.equal(found.code, 0, `${found.stdout}${found.stderr}`);
  assert.match(found.stdout, /writes programs/);
});
