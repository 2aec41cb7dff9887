/**
 * `mcp-workbench init --from` on client files as the clients write them, with their own variables
 * (VS Code's `servers` + `inputs`, Cursor's global and project files, Claude Code's three scopes):
 * what is written loads in `check`, and the servers get the values the editor would have given them.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname } from "node:path";
import { removeTempDirs, tempDir } from "../helpers/workbench.ts";
import { runCli } from "../helpers/cli.ts";
import { fx } from "../helpers/toolbox.ts";

after(removeTempDirs);

/** A HOME and a project folder, with the client files written (paths from "~/" or "./"). */
function layout(files: Record<string, unknown>) {
  const root = tempDir();
  const home = `${root}/home`;
  const work = `${root}/work/my-app`;
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  const write = (more: Record<string, unknown>) => {
    for (const [name, content] of Object.entries(more)) {
      const path = name.startsWith("~/") ? `${home}/${name.slice(2)}` : name.startsWith("./") ? `${work}/${name.slice(2)}` : name;
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content, null, 2));
    }
  };
  write(files);
  return { root, home, work, out: `${root}/out/workbench-config.json`, write };
}

/** The fixture's `env` tool through `call`: the environment the server was started with. */
async function serverEnv(out: string, server: string, env: Record<string, string>, cwd: string) {
  const called = await runCli(["call", "--config", out, "default", server, "env", "{}"], { env, cwd });
  assert.equal(called.code, 0, called.stdout + called.stderr);
  return JSON.parse(called.stdout.slice(called.stdout.indexOf("{"), called.stdout.lastIndexOf("}") + 1)) as Record<string, string>;
}

test("init --from vscode: servers + inputs with ${input:ID}, ${env:X}, ${userHome}, ${workspaceFolder}, ${workspaceFolderBasename}, ${/}: the file loads and the server gets the editor's values", async () => {
  const server = fx("code") as { command: string; args: string[]; env: Record<string, string> };
  const vscode = {
    inputs: [
      { type: "promptString", id: "api-key", description: "API Key", password: true },
      { type: "pickString", id: "region", description: "Region", options: ["eu", "us"], default: "eu" },
    ],
    servers: {
      code: {
        type: "stdio",
        command: server.command,
        args: [...server.args, "--data", "${workspaceFolder}${/}data"],
        env: {
          ...server.env,
          API_KEY: "${input:api-key}",
          REGION: "${input:region}",
          MY_KEY: "${env:MY_KEY}",
          HOME_DIR: "${userHome}",
          APP: "${workspaceFolderBasename}",
        },
        cwd: "${workspaceFolder}",
        envFile: "${workspaceFolder}/.env",
      },
    },
  };
  const { home, work, out } = layout({ "./.vscode/mcp.json": `// made by VS Code\n${JSON.stringify(vscode, null, 2)}` });
  const result = await runCli(["init", "--from", "vscode", "--out", out], { env: { HOME: home }, cwd: work });
  assert.equal(result.code, 0, result.stderr);
  // A workspace's servers are that folder's alone: a file of their own, which the workspace's own file starts.
  const ownFile = out.replace(/\.json$/, ".my-app.json");
  assert.equal(existsSync(out), false, "no file for the user's servers: there are none");

  const written = JSON.parse(readFileSync(ownFile, "utf8")).toolboxes.default.mcpServers.code;
  assert.deepEqual(written.env, {
    ...server.env,
    API_KEY: "${API_KEY}",
    REGION: "${REGION:-eu}",
    MY_KEY: "${MY_KEY}",
    HOME_DIR: home,
    APP: "my-app",
  });
  assert.deepEqual(written.args.slice(-2), ["--data", `${work}/data`]);
  assert.equal(written.cwd, work);

  const lines = result.stdout.split("\n");
  assert.ok(
    lines.includes("Set API_KEY where the workbench starts: it stands for VS Code's input 'api-key' (API Key), read by server 'code'; the block below passes it from VS Code and defines it in its own \"inputs\""),
    result.stdout,
  );
  assert.ok(lines.includes("Set REGION where the workbench starts: it stands for VS Code's input 'region' (Region), read by server 'code'; the block below passes it from VS Code and defines it in its own \"inputs\""), result.stdout);
  assert.ok(lines.includes("Set MY_KEY where the workbench starts: it is not set here, and server 'code' reads it"), result.stdout);
  assert.ok(lines.some((line) => line.startsWith("Check it (with API_KEY, MY_KEY set): ")), result.stdout);
  assert.ok(result.stdout.includes(`Then paste this into '${work}/.vscode/mcp.json' in place of the servers it now starts:\n`), result.stdout);
  const block = JSON.parse(result.stdout.slice(result.stdout.indexOf("{", result.stdout.indexOf("Then paste this"))));
  assert.deepEqual(block.servers["workbench-my-app"].args.slice(-2), ["--config", ownFile]);
  assert.deepEqual(block.servers["workbench-my-app"].env, { API_KEY: "${input:api-key}", REGION: "${input:region}" });
  // VS Code resolves an ${input:…} from the file that holds it: the block brings its own, as the workspace file defined them.
  assert.deepEqual(block.inputs, vscode.inputs);

  // Not set: check names what is missing. Set: it loads, and the server sees the editor's values.
  const unset = await runCli(["check", "--config", ownFile], { env: { HOME: home }, cwd: work });
  assert.equal(unset.code, 1);
  assert.match(unset.stdout, /Environment variable API_KEY is not set \(used at toolboxes\.default\.mcpServers\.code\.env\.API_KEY\)/);
  const env = { HOME: home, API_KEY: "k-123", MY_KEY: "mine" };
  const checked = await runCli(["check", "--config", ownFile], { env, cwd: work });
  assert.equal(checked.code, 0, checked.stdout + checked.stderr);
  const seen = await serverEnv(ownFile, "code", env, "/");
  assert.equal(seen.API_KEY, "k-123");
  assert.equal(seen.REGION, "eu");
  assert.equal(seen.MY_KEY, "mine");
  assert.equal(seen.HOME_DIR, home);
  assert.equal(seen.APP, "my-app");
});

test("init --from cursor: the global and the project file, ${env:X}, ${userHome} and ${workspaceFolder}; the project's entry wins a name; the project's servers go into a file of their own that the project's file starts; both load", async () => {
  const server = fx("cur") as { command: string; args: string[]; env: Record<string, string> };
  const entry = (label: string, env: Record<string, string>) => ({ command: server.command, args: server.args, env: { ...server.env, FIXTURE_LABEL: label, ...env } });
  const { home, work, out } = layout({
    "~/.cursor/mcp.json": {
      mcpServers: {
        notes: entry("notes", { NOTES_DIR: "${userHome}/notes", TOKEN: "${env:NOTES_TOKEN}" }),
        shared: entry("global-shared", {}),
      },
    },
    "./.cursor/mcp.json": { mcpServers: { shared: entry("project-shared", { ROOT: "${workspaceFolder}" }) } },
  });
  const result = await runCli(["init", "--from", "cursor", "--out", out], { env: { HOME: home }, cwd: work });
  assert.equal(result.code, 0, result.stderr);
  const from = `'${home}/.cursor/mcp.json', '${work}/.cursor/mcp.json'`;
  const ownFile = out.replace(/\.json$/, ".my-app.json");
  assert.ok(result.stdout.startsWith(`Wrote '${out}': toolbox 'default' with 1 server(s) from ${from}: notes (global)\n`), result.stdout);
  assert.ok(result.stdout.includes(`\nWrote '${ownFile}': toolbox 'default' with 1 server(s) from ${from}: shared (project)\n`), result.stdout);
  // The global 'shared' is no server of either file: it stays where it is, and is not among the entries to remove.
  assert.ok(result.stdout.includes(`Server 'shared' is also in the global scope: the project entry is imported, as cursor uses it; the global one is left as it is in '${home}/.cursor/mcp.json'\n`), result.stdout);
  assert.ok(result.stdout.includes(`Remove from '${home}/.cursor/mcp.json' (the workbench starts them now, so they would run twice): 'notes'\n`), result.stdout);
  // Each workbench is started where its servers were: every folder's from the global file, the project's from the project's file.
  const pasted = (file: string) => {
    const at = result.stdout.indexOf(`Then paste this into '${file}' in place of the servers it now starts:\n`);
    assert.ok(at >= 0, result.stdout);
    const start = result.stdout.indexOf("{", at);
    return JSON.parse(result.stdout.slice(start, result.stdout.indexOf("\n}", start) + 2)).mcpServers;
  };
  assert.deepEqual(pasted(`${home}/.cursor/mcp.json`).workbench.args.slice(-2), ["--config", out]);
  assert.deepEqual(pasted(`${work}/.cursor/mcp.json`)["workbench-my-app"].args.slice(-2), ["--config", ownFile]);
  const servers = JSON.parse(readFileSync(out, "utf8")).toolboxes.default.mcpServers;
  assert.deepEqual(Object.keys(servers), ["notes"]);
  assert.equal(servers.notes.env.NOTES_DIR, `${home}/notes`);
  assert.equal(servers.notes.env.TOKEN, "${NOTES_TOKEN}");
  const own = JSON.parse(readFileSync(ownFile, "utf8")).toolboxes.default.mcpServers;
  assert.deepEqual(Object.keys(own), ["shared"]);
  assert.equal(own.shared.env.FIXTURE_LABEL, "project-shared");
  assert.equal(own.shared.env.ROOT, work);
  for (const file of [out, ownFile]) {
    const checked = await runCli(["check", "--config", file], { env: { HOME: home, NOTES_TOKEN: "t" }, cwd: "/" });
    assert.equal(checked.code, 0, checked.stdout + checked.stderr);
  }
});

test("init --from claude-code: the local scope (projects[<folder>] of ~/.claude.json), ./.mcp.json and the user scope, local > project > user; the project's servers in a file of their own; disabledMcpjsonServers imported disabled; --project for another folder", async () => {
  const server = fx("cc") as { command: string; args: string[]; env: Record<string, string> };
  const entry = (label: string) => ({ type: "stdio", command: server.command, args: server.args, env: { ...server.env, FIXTURE_LABEL: label } });
  const { root, home, work, out, write } = layout({});
  const other = `${root}/work/other`;
  write({
    "~/.claude.json": {
      numStartups: 12,
      mcpServers: { everywhere: entry("user-everywhere"), db: entry("user-db") },
      projects: {
        [work]: { allowedTools: [], mcpServers: { mine: entry("local-mine"), db: entry("local-db") }, hasTrustDialogAccepted: true, disabledMcpjsonServers: ["team"] },
        [other]: { mcpServers: { theirs: entry("local-theirs") } },
        [`${root}/work/empty`]: { mcpServers: {} },
      },
    },
    "./.mcp.json": { mcpServers: { team: entry("project-team"), db: entry("project-db"), docs: entry("project-docs") } },
    [`${other}/.mcp.json`]: { mcpServers: { otherTeam: entry("project-other-team") } },
  });

  const result = await runCli(["init", "--from", "claude-code", "--out", out], { env: { HOME: home }, cwd: work });
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout.split("\n");
  const from = `'${home}/.claude.json', '${work}/.mcp.json'`;
  // The project's servers (project and local scope) go into a file of their own, served by a workbench registered for that folder only.
  const projectOut = out.replace(/\.json$/, ".my-app.json");
  const wrote = lines.filter((line) => line.startsWith("Wrote "));
  assert.equal(wrote[0], `Wrote '${out}': toolbox 'default' with 1 server(s) from ${from}: everywhere (user)`);
  assert.equal(wrote[1], `Wrote '${projectOut}': toolbox 'default' with 4 server(s) from ${from}: db (local), team (project), docs (project), mine (local)`);
  assert.ok(lines.includes(`Server 'team' is imported disabled ('${home}/.claude.json' lists it in "disabledMcpjsonServers"): the workbench does not start it; delete its "disabled" key to use it`), result.stdout);
  const steps = lines.slice(lines.indexOf(`Remove the imported servers from Claude Code, so that they do not run twice (run in '${work}'):`));
  // Not 'team': disabled in Claude Code, it does not run there, so it cannot run twice.
  assert.deepEqual(steps.slice(1, 6), [
    "claude mcp remove --scope user everywhere",
    "claude mcp remove --scope local db",
    "claude mcp remove --scope project docs",
    "claude mcp remove --scope local mine",
    `(The project-scope ones edit the shared '${work}/.mcp.json': to leave it as it is for others, list "docs" in "disabledMcpjsonServers" of projects["${work}"] in '${home}/.claude.json' instead)`,
  ]);
  assert.equal(steps[7], "Then run this:");
  assert.match(steps[8], new RegExp(`^claude mcp add --scope user workbench -- .* --config ${out}$`));
  assert.equal(steps[9], `Then run this in '${work}':`);
  assert.match(steps[10], new RegExp(`^claude mcp add --scope local workbench-my-app -- .* --config ${projectOut}$`));
  const project = JSON.parse(readFileSync(projectOut, "utf8")).toolboxes.default.mcpServers;
  assert.deepEqual(Object.keys(project), ["db", "team", "docs", "mine"]);
  assert.equal(project.team.disabled, true);
  assert.equal(project.db.env.FIXTURE_LABEL, "local-db");
  const checkedProject = await runCli(["check", "--config", projectOut], { env: { HOME: home }, cwd: "/" });
  assert.equal(checkedProject.code, 0, checkedProject.stdout + checkedProject.stderr);
  assert.match(checkedProject.stdout, /\ndefault +team +- +disabled /);
  assert.ok(lines.some((line) => line.startsWith("Server 'db' is also in the user scope: the project entry is imported, as claude-code uses it; the user one is left as it is in '")), result.stdout);
  assert.ok(lines.some((line) => line.startsWith("Server 'db' is also in the project scope: the local entry is imported, as claude-code uses it; the project one is left as it is in '")), result.stdout);
  assert.ok(lines.includes(`Claude Code also keeps servers for '${other}': import those with --project PATH`), result.stdout);
  assert.deepEqual(Object.keys(JSON.parse(readFileSync(out, "utf8")).toolboxes.default.mcpServers), ["everywhere"]);
  const checked = await runCli(["check", "--config", out], { env: { HOME: home }, cwd: "/" });
  assert.equal(checked.code, 0, checked.stdout + checked.stderr);

  const elsewhere = await runCli(["init", "--from", "claude-code", "--project", "../other", "--out", out, "--force"], { env: { HOME: home }, cwd: work });
  assert.equal(elsewhere.code, 0, elsewhere.stderr);
  assert.ok(elsewhere.stdout.includes(": everywhere (user), db (user)\n"), elsewhere.stdout);
  assert.ok(elsewhere.stdout.includes(`Wrote '${out.replace(/\.json$/, ".other.json")}': toolbox 'default' with 2 server(s) from `), elsewhere.stdout);
  assert.ok(elsewhere.stdout.includes(": otherTeam (project), theirs (local)\n"), elsewhere.stdout);
  assert.ok(elsewhere.stdout.includes(`Claude Code also keeps servers for '${work}': import those with --project PATH`), elsewhere.stdout);

  // A folder Claude Code keeps nothing for (and no user scope): the folders it does keep servers for are named.
  write({ [`${root}/home2/.claude.json`]: { mcpServers: {}, projects: { [work]: { mcpServers: { mine: entry("m") } }, [`${root}/work/empty`]: {} } } });
  mkdirSync(`${root}/work/empty`);
  const none = await runCli(["init", "--from", "claude-code", "--out", out, "--force"], { env: { HOME: `${root}/home2` }, cwd: `${root}/work/empty` });
  assert.equal(none.code, 2);
  assert.equal(
    none.stderr,
    `mcp-workbench: No servers found in '${root}/home2/.claude.json' (under "mcpServers"); Claude Code keeps servers for '${work}': import those with --project PATH\n`,
  );

  const desktop = await runCli(["init", "--from", "claude-desktop", "--project", work, "--out", `${root}/x.json`], { env: { HOME: home }, cwd: work });
  assert.equal(desktop.code, 2);
  assert.equal(
    desktop.stderr,
    "mcp-workbench: Option '--project' is for --from claude-code, cursor, vscode or a file's path: it names the project folder their servers are read for\n",
  );
});

test("init: a variable with no value outside the editor names the server and field, and nothing is written", async () => {
  const { home, work, out } = layout({
    "./.vscode/mcp.json": {
      servers: {
        ok: { type: "stdio", command: "npx", args: ["-y", "a"] },
        picker: { type: "stdio", command: "npx", args: ["-y", "b", "${command:pickFolder}"], env: { F: "${file}", K: "${env:MY-KEY}" } },
      },
    },
  });
  const result = await runCli(["init", "--from", "vscode", "--out", out], { env: { HOME: home }, cwd: work });
  assert.equal(result.code, 2);
  assert.equal(
    result.stderr,
    `mcp-workbench: 3 variables have no value outside the editor; change them in '${work}/.vscode/mcp.json' (nothing was written):\n` +
      "  - Server 'picker' uses ${command:pickFolder} at args[2]: it has no value outside the editor\n" +
      "  - Server 'picker' uses ${file} at env.F: it has no value outside the editor\n" +
      "  - Server 'picker' uses ${env:MY-KEY} at env.K: it has no value outside the editor\n",
  );
  assert.equal(result.stdout, "");
  assert.equal(existsSync(out), false);
  assert.equal(existsSync(dirname(out)), false, basename(out));
});

test("init: a server the loader would refuse is reported, and nothing is written", async () => {
  const { home, work, out, write } = layout({ "~/.cursor/mcp.json": { mcpServers: { broken: { args: ["x"] }, fine: { command: "npx" } } } });
  const result = await runCli(["init", "--from", "cursor", "--out", out], { env: { HOME: home }, cwd: work });
  assert.equal(result.code, 2);
  assert.equal(
    result.stderr,
    "mcp-workbench: The imported servers would not load, so nothing was written: " +
      "Invalid configuration at toolboxes.default.mcpServers.broken.command: expected a non-empty string\n",
  );
  assert.equal(existsSync(out), false);
  // What only expanding finds (a URL that is not http) stops it too; a variable not set here does not.
  write({ "~/.cursor/mcp.json": { mcpServers: { remote: { url: "ftp://example.invalid/mcp" }, later: { url: "${env:MCP_URL}" } } } });
  const remote = await runCli(["init", "--from", "cursor", "--out", out], { env: { HOME: home }, cwd: work });
  assert.equal(remote.code, 2);
  assert.equal(
    remote.stderr,
    "mcp-workbench: The imported servers would not load, so nothing was written: " +
      "Invalid configuration at toolboxes.default.mcpServers.remote.url: expected an http or https URL after expanding environment variables\n",
  );
  assert.equal(existsSync(out), false);
  write({ "~/.cursor/mcp.json": { mcpServers: { one: { args: [] }, two: { command: "npx", args: "x" } } } });
  const both = await runCli(["init", "--from", "cursor", "--out", out], { env: { HOME: home }, cwd: work });
  assert.equal(both.code, 2);
  assert.match(both.stderr, /^mcp-workbench: The imported servers would not load, so nothing was written:\n {2}- .*mcpServers\.one\.command.*\n {2}- .*mcpServers\.two\.args.*\n$/);
  write({ "~/.cursor/mcp.json": { mcpServers: { later: { url: "${env:MCP_URL}" } } } });
  const later = await runCli(["init", "--from", "cursor", "--out", out], { env: { HOME: home }, cwd: work });
  assert.equal(later.code, 0, later.stderr);
  assert.ok(later.stdout.includes("Set MCP_URL where the workbench starts: it is not set here, and server 'later' reads it"), later.stdout);
});

test("init: a secret in args (a URL with a password, --api-key VALUE, --token=VALUE, a token) makes the file 0600; references do not", async () => {
  const cases: [string[], string | undefined][] = [
    [["-y", "@modelcontextprotocol/server-postgres", "postgres://app:pa55word@db.invalid/app"], "args[2]"],
    [["-y", "some-server", "--api-key", "k-live-1"], "args[3]"],
    [["-y", "some-server", "--token=t0k"], "args[2]"],
    [["-y", "some-server", "sk-proj-Q2hhbmdlTWUxMjM0NTY3ODkw"], "args[2]"],
    [["-y", "some-server", "--api-key", "${API_KEY}", "postgres://localhost:5432/app"], undefined],
  ];
  for (const [args, field] of cases) {
    const { home, work, out } = layout({ "~/.cursor/mcp.json": { mcpServers: { db: { command: "npx", args } } } });
    const result = await runCli(["init", "--from", "cursor", "--out", out], { env: { HOME: home, API_KEY: "set" }, cwd: work });
    assert.equal(result.code, 0, result.stderr);
    const mode = statSync(out).mode & 0o777;
    if (field === undefined) {
      assert.notEqual(mode & 0o077, 0, args.join(" "));
      assert.ok(!result.stdout.includes("mode 0600"), result.stdout);
    } else {
      assert.equal(mode, 0o600, args.join(" "));
      assert.ok(result.stdout.includes(`It holds a value that looks secret (server 'db', ${field}), so only you can read it (mode 0600)\n`), result.stdout);
      assert.ok(!result.stdout.includes(args.at(-1)!), "the value itself is never printed");
    }
  }
});

test("init --from PATH: ${workspaceFolder} is the folder holding the file's .vscode (or .cursor), else the current one, or --project", async () => {
  const { root, home, work, out, write } = layout({});
  const file = { servers: { a: { type: "stdio", command: "npx", args: ["${workspaceFolder}"] } } };
  write({ [`${root}/elsewhere/.vscode/mcp.json`]: file, [`${root}/loose.json`]: file });
  const cases: [string[], string][] = [
    [["--from", "../../elsewhere/.vscode/mcp.json"], `${root}/elsewhere`],
    [["--from", `${root}/loose.json`], work],
    [["--from", `${root}/loose.json`, "--project", ".."], `${root}/work`],
  ];
  for (const [args, folder] of cases) {
    const result = await runCli(["init", ...args, "--out", out, "--force"], { env: { HOME: home }, cwd: work });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(readFileSync(out, "utf8")).toolboxes.default.mcpServers.a.args, [folder], args.join(" "));
  }
});

test("init --from windsurf: a tool the user turned off (disabledTools) stays off: toolFilters [\"!name\"], said in the note; the others are offered", async () => {
  const server = fx("surf") as { command: string; args: string[]; env: Record<string, string> };
  const { home, work, out } = layout({ "~/.codeium/windsurf/mcp_config.json": { mcpServers: { surf: { ...server, disabledTools: ["echo"] } } } });
  const result = await runCli(["init", "--from", "windsurf", "--out", out], { env: { HOME: home }, cwd: work });
  assert.equal(result.code, 0, result.stderr);
  assert.ok(result.stdout.includes(`Server 'surf': 'echo' stays off ("disabledTools"), written as toolFilters ["!echo"]; delete an entry to offer that tool\n`), result.stdout);
  assert.ok(!result.stdout.includes("not a workbench setting"), result.stdout);
  assert.deepEqual(JSON.parse(readFileSync(out, "utf8")).toolboxes.default.mcpServers.surf.toolFilters, ["!echo"]);
  const tools = await runCli(["tools", "default", "--config", out], { env: { HOME: home }, cwd: work });
  assert.equal(tools.code, 0, tools.stderr);
  const names = tools.stdout.split("\n").map((line) => line.split(" ")[0]);
  assert.ok(!names.includes("surf/echo"), tools.stdout);
  assert.ok(names.length > 5 && names.some((name) => name.startsWith("surf/")), tools.stdout);
});
