/**
 * `mcp-workbench init` from a sample configuration of every client format, written into a
 * temporary HOME; then `check` on the result passes and open_toolbox on it lists the tools.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { tempDir, withWorkbench } from "../helpers/workbench.ts";
import { runCli } from "../helpers/cli.ts";
import { fx, opened, openToolbox, toolsOf, FIXTURE_TOOLS } from "../helpers/toolbox.ts";
import { validateConfig } from "../../src/config/index.ts";

const SECRET = "s3cret-value-never-printed";

/** A client's server entry for our fixture, with a secret in env as real ones have. */
function entry(label: string, extra: Record<string, unknown> = {}) {
  const server = fx(label) as { command: string; args: string[]; env: Record<string, string> };
  return { ...server, env: { ...server.env, API_TOKEN: SECRET }, ...extra };
}

interface Case {
  source: string;
  /** Files to write, relative to HOME ("~/...") or to the working folder ("./..."). */
  files: Record<string, unknown>;
  /** The servers the written toolbox must hold, by name: the fixture labels. */
  servers: string[];
  /** How the paste block starts. */
  block: "mcpServers" | "servers" | "claude mcp add";
  env?: (home: string) => Record<string, string>;
}

const CASES: Case[] = [
  {
    source: "claude-desktop",
    files: { "~/xdg/Claude/claude_desktop_config.json": { mcpServers: { desk: entry("desk") }, globalShortcut: "" } },
    servers: ["desk"],
    block: "mcpServers",
    env: (home) => ({ XDG_CONFIG_HOME: `${home}/xdg` }),
  },
  {
    source: "claude-code",
    files: {
      // The user scope only: a project's servers go into a file of their own (cli-init-import).
      "~/.claude.json": { numStartups: 3, mcpServers: { user: entry("user", { type: "stdio" }), other: entry("other") }, projects: {} },
    },
    servers: ["user", "other"],
    block: "claude mcp add",
  },
  { source: "cursor", files: { "~/.cursor/mcp.json": { mcpServers: { cur: entry("cur") } } }, servers: ["cur"], block: "mcpServers" },
  {
    source: "vscode",
    files: {
      // The user's own file: a workspace's servers go into a file of their own (cli-init-import).
      "~/.config/Code/User/mcp.json": `// VS Code allows comments and trailing commas\n${
        JSON.stringify({ inputs: [], servers: { code: entry("code", { type: "stdio" }) } }, null, 2).replace(/\n}$/, ",\n}")
      }`,
    },
    servers: ["code"],
    block: "servers",
  },
  {
    source: "windsurf",
    files: { "~/.codeium/windsurf/mcp_config.json": { mcpServers: { surf: entry("surf", { disabled: false }) } } },
    servers: ["surf"],
    block: "mcpServers",
  },
  { source: "./elsewhere/client.json", files: { "./elsewhere/client.json": { mcpServers: { byPath: entry("byPath") } } }, servers: ["byPath"], block: "mcpServers" },
];

function writeFiles(home: string, work: string, files: Record<string, unknown>): void {
  for (const [name, content] of Object.entries(files)) {
    const path = name.startsWith("~/") ? `${home}/${name.slice(2)}` : `${work}/${name.slice(2)}`;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  }
}

for (const item of CASES) {
  test(`init --from ${item.source}: writes the servers as they are, prints the paste block, then check passes and open_toolbox lists the tools`, async () => {
    const root = tempDir();
    const home = `${root}/home`;
    const work = `${root}/work`;
    mkdirSync(work, { recursive: true });
    try {
      writeFiles(home, work, item.files);
      const env = { HOME: home, ...item.env?.(home) };
      const out = `${root}/out/workbench-config.json`;
      const result = await runCli(["init", "--from", item.source, "--out", out, "--toolbox", "mine"], { env, cwd: work });
      assert.equal(result.code, 0, result.stderr);
      assert.ok(!result.stdout.includes(SECRET) && !result.stderr.includes(SECRET), "env values are never printed");
      const written = JSON.parse(readFileSync(out, "utf8"));
      assert.equal(written.$schema, "https://raw.githubusercontent.com/mcp-workbench/mcp-workbench/main/workbench-config.schema.json");
      assert.deepEqual(Object.keys(written.toolboxes), ["mine"]);
      const toolbox = written.toolboxes.mine;
      assert.deepEqual(Object.keys(toolbox.mcpServers), item.servers);
      assert.equal(toolbox.description.endsWith(`: ${item.servers.join(", ")}`), true, toolbox.description);
      for (const name of item.servers) {
        const { type: _, disabled: __, ...expected } = entry(name) as Record<string, unknown>;
        assert.deepEqual(toolbox.mcpServers[name], expected, "carried over as it is, type stdio and unknown keys left out");
      }
      const block = result.stdout.slice(result.stdout.indexOf(item.block === "claude mcp add" ? "Then run this" : "Then paste this"));
      const pasted = block.slice(block.indexOf("\n") + 1).trim();
      if (item.block === "claude mcp add") {
        assert.ok(pasted.startsWith("claude mcp add --scope user workbench -- /"), pasted);
        assert.ok(pasted.endsWith(` --config ${out}`), pasted);
      } else {
        const json = JSON.parse(pasted);
        const workbench = json[item.block].workbench;
        assert.deepEqual(workbench.args.slice(-2), ["--config", out]);
        assert.ok(workbench.command.startsWith("/") && existsSync(workbench.command), workbench.command);
        assert.equal(workbench.type, item.block === "servers" ? "stdio" : undefined);
      }
      const checked = await runCli(["check", "--config", out], { cwd: work });
      assert.equal(checked.code, 0, checked.stdout + checked.stderr);
      await withWorkbench(written, async (session) => {
        const value = opened(await openToolbox(session, "mine"));
        assert.equal(value.servers_connected, item.servers.length);
        for (const name of item.servers) assert.deepEqual(toolsOf(value, name), FIXTURE_TOOLS);
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
}

test("init: the default --out is in XDG_CONFIG_HOME; an existing file is never overwritten without --force", async () => {
  const root = tempDir();
  try {
    const home = `${root}/home`;
    writeFiles(home, root, { "~/.cursor/mcp.json": { mcpServers: { a: entry("a") } } });
    const env = { HOME: home, XDG_CONFIG_HOME: `${root}/config` };
    const out = `${root}/config/mcp-workbench/workbench-config.json`;
    const first = await runCli(["init", "--from", "cursor"], { env, cwd: root });
    assert.equal(first.code, 0, first.stderr);
    const before = readFileSync(out, "utf8");
    assert.ok(first.stdout.startsWith(`Wrote '${out}': toolbox 'default' with 1 server(s)`), first.stdout);
    writeFiles(home, root, { "~/.cursor/mcp.json": { mcpServers: { b: entry("b") } } });
    const again = await runCli(["init", "--from", "cursor"], { env, cwd: root });
    assert.equal(again.code, 1);
    assert.equal(again.stderr, `mcp-workbench: File exists: '${out}' (it is left as it is; use --merge to add the new servers to it, or --force to overwrite it)\n`);
    assert.equal(again.stdout, "");
    assert.equal(readFileSync(out, "utf8"), before);
    const forced = await runCli(["init", "--from", "cursor", "--force"], { env, cwd: root });
    assert.equal(forced.code, 0, forced.stderr);
    assert.deepEqual(Object.keys(JSON.parse(readFileSync(out, "utf8")).toolboxes.default.mcpServers), ["b"]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("init without --from writes a commented starter file that validates; a missing source exits 2", async () => {
  const root = tempDir();
  try {
    const out = `${root}/starter.json`;
    const result = await runCli(["init", "--out", "starter.json"], { env: { HOME: root }, cwd: root });
    assert.equal(result.code, 0, result.stderr);
    const starter = JSON.parse(readFileSync(out, "utf8"));
    assert.equal(typeof starter.$comment, "string");
    assert.deepEqual(Object.keys(validateConfig(starter).toolboxes), ["default"]);
    const missing = await runCli(["init", "--from", "windsurf", "--out", `${root}/x.json`], { env: { HOME: root }, cwd: root });
    assert.equal(missing.code, 2);
    assert.equal(
      missing.stderr,
      `mcp-workbench: No windsurf configuration found (looked at '${root}/.codeium/windsurf/mcp_config.json'); give its path: --from PATH\n`,
    );
    assert.equal(existsSync(`${root}/x.json`), false);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});


test("README's set-up path on a fresh HOME: init --from claude-desktop, then check and serving with no --config find the file", async () => {
  const root = tempDir();
  try {
    const home = `${root}/home`;
    const work = `${root}/work`;
    mkdirSync(work, { recursive: true });
    writeFiles(home, work, { "~/.config/Claude/claude_desktop_config.json": { mcpServers: { desk: entry("desk") } } });
    const env = { HOME: home };
    const file = `${home}/.config/mcp-workbench/workbench-config.json`;
    const init = await runCli(["init", "--from", "claude-desktop"], { env, cwd: work });
    assert.equal(init.code, 0, init.stderr);
    assert.ok(init.stdout.includes("It holds env or headers values, so only you can read it (mode 0600)"), init.stdout);
    assert.equal(statSync(file).mode & 0o777, 0o600, "a file with env values is the user's alone");
    assert.deepEqual(readdirSync(dirname(file)), ["workbench-config.json"], "no temporary file left beside it");
    const checked = await runCli(["check"], { env, cwd: work });
    assert.equal(checked.code, 0, checked.stdout + checked.stderr);
    assert.equal(checked.stdout.split("\n")[0], `Configuration: ${file}`);
    // Serving (stdin closed at once) says which file it serves.
    const served = await runCli([], { env, cwd: work, input: "" });
    assert.ok(served.stderr.includes(`serving 1 toolbox(es) from ${file}`), served.stderr);
    // ./workbench-config.json comes before the user's file.
    writeFileSync(`${work}/workbench-config.json`, JSON.stringify({ toolboxes: { here: { mcpServers: {} } } }));
    const local = await runCli(["check"], { env, cwd: work });
    assert.equal(local.stdout.split("\n")[0], `Configuration: ${work}/workbench-config.json`);
    // Neither there: both are named.
    const none = await runCli(["check"], { env: { HOME: `${root}/nobody` }, cwd: root });
    assert.equal(none.code, 2);
    assert.equal(
      none.stderr,
      `mcp-workbench: Configuration file not found: '${root}/workbench-config.json' nor '${root}/nobody/.config/mcp-workbench/workbench-config.json' ` +
        "(write one with mcp-workbench init, or set another path with --config PATH or the WORKBENCH_CONFIG environment variable)\n",
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("init: a starter file holds no secrets and keeps the usual mode; an unknown client name lists the known ones", async () => {
  const root = tempDir();
  try {
    const starter = await runCli(["init", "--out", "starter.json"], { env: { HOME: root }, cwd: root });
    assert.equal(starter.code, 0, starter.stderr);
    assert.ok(!starter.stdout.includes("mode 0600"), starter.stdout);
    assert.notEqual(statSync(`${root}/starter.json`).mode & 0o077, 0, "readable as any file the user writes");
    const unknown = await runCli(["init", "--from", "nosuchclient"], { env: { HOME: root }, cwd: root });
    assert.equal(unknown.code, 2);
    assert.equal(
      unknown.stderr,
      "mcp-workbench: Unknown client 'nosuchclient': expected 'claude-desktop', 'claude-code', 'cursor', 'vscode', 'windsurf' or a file's path\n",
    );
    const path = await runCli(["init", "--from", "./nosuch.json"], { env: { HOME: root }, cwd: root });
    assert.equal(path.code, 2);
    assert.match(path.stderr, /^mcp-workbench: Cannot read '.*\/nosuch\.json': /);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
