/**
 * init on client files that already hold the workbench, disabled servers, Windsurf's serverUrl and
 * VS Code's user file, without a whole process around it: what is written and what is said.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { runInit } from "../../src/cli/init.ts";
import { platform } from "#platform";
import { capturedPlatform } from "../helpers/captured-platform.ts";
import { tempDir } from "../helpers/workbench.ts";

/** A HOME with XDG_CONFIG_HOME under it, and runInit there. */
function place() {
  const dir = tempDir();
  const home = `${dir}/home`;
  const env = { HOME: home, XDG_CONFIG_HOME: `${home}/.config` };
  const write = (path: string, data: unknown) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify(data, null, 2));
  };
  const init = async (options: Record<string, string | true>) => {
    const { fake, out } = capturedPlatform({ env, cwd: `${dir}/work` });
    return { code: await runInit(fake, { options, positionals: [] }), ...out };
  };
  return { dir, home, write, init, out: `${home}/.config/mcp-workbench/workbench-config.json` };
}

const servers = (file: string, toolbox = "default") => JSON.parse(readFileSync(file, "utf8")).toolboxes[toolbox].mcpServers;

test("init --merge: init twice from Claude Desktop after pasting the block: the workbench's entry is skipped under any name, the new server joins, the old ones stay", async () => {
  const { dir, home, write, init, out } = place();
  try {
    const desktop = `${home}/.config/Claude/claude_desktop_config.json`;
    write(desktop, { mcpServers: { notes: { command: "notes-server" } } });
    const first = await init({ "--from": "claude-desktop" });
    assert.equal(first.code, 0, first.stderr);
    assert.ok(first.stdout.includes(`Remove from '${desktop}' (the workbench starts them now, so they would run twice): 'notes'\n`), first.stdout);

    // What the user has once the block is pasted: the workbench (as printed), and one server added next to it.
    const self = platform.selfCommand();
    write(desktop, {
      mcpServers: {
        workbench: { command: self.command, args: [...self.args, "--config", out] },
        "mcp-workbench": { command: "/usr/local/bin/mcp-workbench", args: [] },
        mine: { command: "/opt/node", args: ["/opt/wb/main.js", `--config=${out}`] },
        notes: { command: "notes-server" },
        memory: { command: "memory-server", disabled: false },
      },
    });
    // A server the file has under another definition stays the file's, and the client's is not to be removed.
    writeFileSync(out, readFileSync(out, "utf8").replace('"notes-server"', '"notes-server", "args": ["--mine"]'));
    const again = await init({ "--from": "claude-desktop" });
    assert.equal(again.code, 1);
    assert.equal(again.stderr, `mcp-workbench: File exists: '${out}' (it is left as it is; use --merge to add the new servers to it, or --force to overwrite it)\n`);

    const merged = await init({ "--from": "claude-desktop", "--merge": true });
    assert.equal(merged.code, 0, merged.stderr);
    const lines = merged.stdout.split("\n");
    assert.equal(lines[0], `Added to toolbox 'default' of '${out}' 1 server(s) from '${desktop}': memory; left as they were: notes (toolbox 'default' has another server of that name, kept as it is)`);
    assert.ok(lines.includes(`Skipped 'workbench' in '${desktop}': it is this workbench (its command is the one this workbench runs as ('${[self.command, ...self.args].join(" ")}')), not a server to import`), merged.stdout);
    assert.ok(lines.includes(`Skipped 'mcp-workbench' in '${desktop}': it is this workbench (its command is '/usr/local/bin/mcp-workbench'), not a server to import`), merged.stdout);
    assert.ok(lines.includes(`Skipped 'mine' in '${desktop}': it is this workbench (its --config names '${out}'), not a server to import`), merged.stdout);
    assert.ok(lines.includes(`'${desktop}' already starts the workbench as 'workbench': keep that entry`), merged.stdout);
    assert.ok(lines.includes(`Remove from '${desktop}' (the workbench starts them now, so they would run twice): 'memory'`), merged.stdout);
    assert.ok(!merged.stdout.includes("Then paste this"), merged.stdout);
    assert.deepEqual(servers(out), { notes: { command: "notes-server", args: ["--mine"] }, memory: { command: "memory-server" } });
    // The description init wrote names the servers now in the toolbox; one the user wrote is kept (below).
    assert.equal(JSON.parse(readFileSync(out, "utf8")).toolboxes.default.description, "Servers from claude-desktop: notes, memory");

    // Once more: nothing new, the file is left as it is.
    const before = readFileSync(out, "utf8");
    const nothing = await init({ "--from": "claude-desktop", "--merge": true });
    assert.equal(nothing.code, 0, nothing.stderr);
    assert.ok(nothing.stdout.startsWith(`Nothing new for '${out}' from '${desktop}'; left as they were: notes (toolbox 'default' has another server of that name, kept as it is), memory (already in toolbox 'default')\n`), nothing.stdout);
    assert.ok(nothing.stdout.includes(`Remove from '${desktop}' (the workbench starts them now, so they would run twice): 'memory'\n`), nothing.stdout);
    assert.equal(readFileSync(out, "utf8"), before);

    // Without --merge, a file with only the workbench in it says what to do; another server called "workbench" is left out, said.
    write(desktop, { mcpServers: { wb: { command: "C:\\Tools\\MCP-Workbench.exe" } } });
    const only = await init({ "--from": "claude-desktop", "--out": `${dir}/other.json` });
    assert.equal(only.code, 2);
    assert.equal(only.stderr, `mcp-workbench: Nothing to import: '${desktop}' starts only the workbench ('wb'); to add a server it has next to it, run init with --merge\n`);
    // Written to another file, the entry there serves the old one: the block to paste in its place is printed.
    write(desktop, { mcpServers: { wb: { command: "/opt/mcp-workbench", args: ["--config", out] }, c: { command: "c" } } });
    const elsewhere = await init({ "--from": "claude-desktop", "--out": `${dir}/third.json` });
    assert.equal(elsewhere.code, 0, elsewhere.stderr);
    assert.ok(elsewhere.stdout.includes(`Then paste this into '${desktop}' in place of the servers it now starts and of its entry 'wb', which serves '${out}':\n{`), elsewhere.stdout);
    write(desktop, { mcpServers: { workbench: { command: "someone-elses-workbench" }, b: { command: "b" } } });
    const reserved = await init({ "--from": "claude-desktop", "--out": `${dir}/other.json` });
    assert.equal(reserved.code, 0, reserved.stderr);
    assert.ok(reserved.stdout.includes(`Left out server 'workbench' of '${desktop}': the name is the workbench's own (read_result); give it another name there to import it\n`), reserved.stdout);
    assert.deepEqual(Object.keys(servers(`${dir}/other.json`)), ["b"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("init --from windsurf: serverUrl is the url, \"disabled\": true is imported disabled and said; --merge into a file without the toolbox adds it", async () => {
  const { dir, home, write, init, out } = place();
  try {
    const surf = `${home}/.codeium/windsurf/mcp_config.json`;
    write(surf, {
      mcpServers: {
        remote: { serverUrl: "https://example.invalid/mcp", headers: { Authorization: "Bearer ${env:TOKEN}" } },
        off: { command: "off-server", disabled: true },
        cline: { type: "streamableHttp", url: "https://example.invalid/other" },
      },
    });
    write(out, { toolboxes: { mine: { description: "kept", mcpServers: { keep: { command: "keep" } } } }, pin: false });
    const result = await init({ "--from": "windsurf", "--merge": true, "--toolbox": "surf" });
    assert.equal(result.code, 0, result.stderr);
    assert.ok(result.stdout.includes(`Server 'off' is imported disabled ('${surf}' has "disabled": true): the workbench does not start it; delete its "disabled" key to use it\n`), result.stdout);
    // The disabled one runs in neither, so it is not among the entries to remove.
    assert.ok(result.stdout.includes(`Remove from '${surf}' (the workbench starts them now, so they would run twice): 'remote', 'cline'\n`), result.stdout);
    const written = JSON.parse(readFileSync(out, "utf8"));
    assert.equal(written.pin, false);
    assert.deepEqual(written.toolboxes.mine, { description: "kept", mcpServers: { keep: { command: "keep" } } });
    assert.deepEqual(written.toolboxes.surf.mcpServers, {
      remote: { url: "https://example.invalid/mcp", headers: { Authorization: "Bearer ${TOKEN}" } },
      off: { command: "off-server", disabled: true },
      cline: { type: "http", url: "https://example.invalid/other" },
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("init --from vscode: the user's Code/User/mcp.json and the workspace's file (which wins a name); an input default holding ${userHome} is kept", async () => {
  const { dir, home, write, init, out } = place();
  try {
    const user = `${home}/.config/Code/User/mcp.json`;
    write(user, {
      inputs: [{ type: "promptString", id: "data-dir", default: "${userHome}/data" }],
      servers: { mine: { command: "mine", args: ["${input:data-dir}"] }, both: { command: "user-both" } },
    });
    write(`${dir}/work/.vscode/mcp.json`, { servers: { both: { command: "workspace-both" } } });
    const result = await init({ "--from": "vscode" });
    assert.equal(result.code, 0, result.stderr);
    const from = `'${user}', '${dir}/work/.vscode/mcp.json'`;
    const ownFile = out.replace(/\.json$/, ".work.json");
    assert.ok(result.stdout.startsWith(`Wrote '${out}': toolbox 'default' with 1 server(s) from ${from}: mine (user)\n`), result.stdout);
    assert.ok(result.stdout.includes(`\nWrote '${ownFile}': toolbox 'default' with 1 server(s) from ${from}: both (workspace)\n`), result.stdout);
    assert.deepEqual(servers(out), { mine: { command: "mine", args: [`\${DATA_DIR:-${home}/data}`] } });
    // The workspace's servers are that folder's: a file of their own, started from the workspace's file.
    assert.deepEqual(servers(ownFile), { both: { command: "workspace-both" } });
    const block = result.stdout.slice(result.stdout.indexOf(`Then paste this into '${dir}/work/.vscode/mcp.json'`));
    assert.match(block, /"workbench-work": \{/);
    assert.doesNotMatch(block, /"inputs"/, "the workspace's workbench uses no input");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("init --from cursor: a project file's workbench entry without --config reads another file, so it is not the project's workbench; the global file's is not the project's either", async () => {
  const { dir, home, write, init } = place();
  try {
    write(`${home}/.cursor/mcp.json`, { mcpServers: { workbench: { command: "/opt/bin/mcp-workbench" }, notes: { command: "notes" } } });
    const project = `${dir}/work/.cursor/mcp.json`;
    write(project, { mcpServers: { "workbench-work": { command: "/opt/bin/mcp-workbench" }, db: { command: "db" } } });
    const result = await init({ "--from": "cursor" });
    assert.equal(result.code, 0, result.stderr);
    assert.ok(result.stdout.includes(`'${home}/.cursor/mcp.json' already starts the workbench as 'workbench': keep that entry`), result.stdout);
    assert.ok(result.stdout.includes(`Then paste this into '${project}' in place of the servers it now starts and of its entry 'workbench-work'`), result.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("init --from claude-code after `claude mcp add`: the workbench's entry is kept when it serves the file, else replaced; the steps name each entry to remove", async () => {
  const { dir, home, write, init, out } = place();
  try {
    mkdirSync(`${dir}/work`, { recursive: true });
    write(`${home}/.claude.json`, { mcpServers: { workbench: { type: "stdio", command: "/opt/bin/mcp-workbench", args: ["--config", `${dir}/old.json`] }, notes: { command: "notes" } } });
    const first = await init({ "--from": "claude-code", "--merge": true });
    assert.equal(first.code, 0, first.stderr);
    const steps = first.stdout.slice(first.stdout.indexOf("Remove the imported servers")).split("\n");
    assert.deepEqual(steps.slice(0, 5), [
      `Remove the imported servers from Claude Code, so that they do not run twice:`,
      "claude mcp remove --scope user notes",
      "",
      "Then run this:",
      "claude mcp remove --scope user workbench",
    ]);
    assert.match(steps[5], new RegExp(`^claude mcp add --scope user workbench -- .* --config ${out}$`));

    write(`${home}/.claude.json`, { mcpServers: { workbench: { type: "stdio", command: "/opt/bin/mcp-workbench", args: ["--config", out] }, more: { command: "more" } } });
    const again = await init({ "--from": "claude-code", "--merge": true });
    assert.equal(again.code, 0, again.stderr);
    assert.ok(again.stdout.includes("claude mcp remove --scope user more\n\nClaude Code already starts the workbench as 'workbench' (user scope): keep it\n"), again.stdout);
    assert.deepEqual(Object.keys(servers(out)), ["notes", "more"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("init --from claude-code: with the project's file in the way, neither file is written", async () => {
  const { dir, home, write, init, out } = place();
  try {
    write(`${home}/.claude.json`, { mcpServers: { notes: { command: "notes" } } });
    write(`${dir}/work/.mcp.json`, { mcpServers: { team: { command: "team" } } });
    const projectFile = out.replace(/\.json$/, ".work.json");
    write(projectFile, { toolboxes: {} });
    const result = await init({ "--from": "claude-code" });
    assert.equal(result.code, 1);
    assert.equal(result.stderr, `mcp-workbench: File exists: '${projectFile}' (it is left as it is; use --merge to add the new servers to it, or --force to overwrite it)\n`);
    assert.throws(() => readFileSync(out, "utf8"), /ENOENT/);
    const merged = await init({ "--from": "claude-code", "--merge": true });
    assert.equal(merged.code, 0, merged.stderr);
    assert.deepEqual(servers(out), { notes: { command: "notes" } });
    assert.deepEqual(servers(projectFile), { team: { command: "team" } });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("init --merge: only the servers it added are advised for: a variable read by a server the file had already is not asked for", async () => {
  const { dir, home, write, init, out } = place();
  try {
    const desktop = `${home}/.config/Claude/claude_desktop_config.json`;
    write(desktop, { mcpServers: { notes: { command: "notes-server", env: { NOTES_KEY: "${NOTES_KEY}" } } } });
    assert.equal((await init({ "--from": "claude-desktop" })).code, 0);
    write(desktop, {
      mcpServers: {
        notes: { command: "notes-server", env: { NOTES_KEY: "${NOTES_KEY}" } },
        fresh: { command: "fresh-server", env: { FRESH_KEY: "${FRESH_KEY}" } },
      },
    });
    const merged = await init({ "--from": "claude-desktop", "--merge": true });
    assert.equal(merged.code, 0, merged.stderr);
    assert.ok(merged.stdout.includes("Set FRESH_KEY where the workbench starts: it is not set here, and server 'fresh' reads it\n"), merged.stdout);
    assert.ok(!merged.stdout.includes("NOTES_KEY"), merged.stdout);
    assert.match(merged.stdout, /Check it \(with FRESH_KEY set\): /);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("init --from a file's path: the toolbox's description names that file, not the client whose shape it has", async () => {
  const { dir, write, init, out } = place();
  try {
    const file = `${dir}/work/client.json`;
    write(file, { mcpServers: { memory: { command: "memory-server" } } });
    const result = await init({ "--from": file });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(JSON.parse(readFileSync(out, "utf8")).toolboxes.default.description, `Servers from ${file}: memory`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
