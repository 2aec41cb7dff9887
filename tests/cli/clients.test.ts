import { test } from "node:test";
import assert from "node:assert/strict";
import { clientSources, convertEntry, pasteBlock, projectKey, stripJsonComments } from "../../src/cli/clients.ts";
import { configFolder, type Places } from "../../src/config/user-file.ts";

const linux: Places = { os: "linux", home: "/home/me", cwd: "/home/me/project", env: {} };
const mac: Places = { os: "darwin", home: "/Users/me", cwd: "/Users/me/project", env: {} };
/** The files alone, for clients with one source. */
const clientFiles = (client: Parameters<typeof clientSources>[0], places: Places) =>
  clientSources(client, places, places.cwd).map(({ file }) => file);

const windows: Places = {
  os: "windows",
  home: "C:\\Users\\me",
  cwd: "C:\\work",
  env: { APPDATA: "C:\\Users\\me\\AppData\\Roaming" },
};

test("clients: Claude Desktop's file on macOS, Windows, and Linux with and without XDG_CONFIG_HOME", () => {
  assert.deepEqual(clientFiles("claude-desktop", mac), ["/Users/me/Library/Application Support/Claude/claude_desktop_config.json"]);
  assert.deepEqual(clientFiles("claude-desktop", windows), ["C:\\Users\\me\\AppData\\Roaming\\Claude\\claude_desktop_config.json"]);
  assert.deepEqual(clientFiles("claude-desktop", linux), ["/home/me/.config/Claude/claude_desktop_config.json"]);
  assert.deepEqual(
    clientFiles("claude-desktop", { ...linux, env: { XDG_CONFIG_HOME: "/xdg" } }),
    ["/xdg/Claude/claude_desktop_config.json"],
  );
});

test("clients: Claude Code, Cursor, VS Code and Windsurf files; the platform's config folder", () => {
  // Lowest precedence first: Claude Code's local scope wins over project over user, Cursor's project file over its global one.
  assert.deepEqual(clientSources("claude-code", linux, "/srv/other"), [
    { file: "/home/me/.claude.json", scope: "user" },
    { file: "/srv/other/.mcp.json", scope: "project" },
    { file: "/home/me/.claude.json", scope: "local", project: "/srv/other" },
  ]);
  assert.deepEqual(clientFiles("cursor", windows), ["C:\\Users\\me\\.cursor\\mcp.json", "C:\\work\\.cursor\\mcp.json"]);
  // Run in the home folder, Cursor's project file is its global one: read once, as global (else its servers went into a project's file).
  assert.deepEqual(clientSources("cursor", linux, "/home/me"), [{ file: "/home/me/.cursor/mcp.json", scope: "global" }]);
  assert.deepEqual(clientSources("cursor", windows, "c:\\users\\ME").length, 1, "Windows names are one whatever their case");
  // VS Code: the user's file in the platform's config folder, then the workspace's.
  assert.deepEqual(clientFiles("vscode", mac), ["/Users/me/Library/Application Support/Code/User/mcp.json", "/Users/me/project/.vscode/mcp.json"]);
  assert.deepEqual(clientFiles("vscode", linux), ["/home/me/.config/Code/User/mcp.json", "/home/me/project/.vscode/mcp.json"]);
  assert.deepEqual(clientFiles("vscode", windows), ["C:\\Users\\me\\AppData\\Roaming\\Code\\User\\mcp.json", "C:\\work\\.vscode\\mcp.json"]);
  assert.deepEqual(clientFiles("windsurf", linux), ["/home/me/.codeium/windsurf/mcp_config.json"]);
  assert.equal(configFolder(mac), "/Users/me/Library/Application Support");
  assert.equal(configFolder(windows), "C:\\Users\\me\\AppData\\Roaming");
  assert.equal(configFolder({ ...linux, env: { XDG_CONFIG_HOME: "/xdg" } }), "/xdg");
});

test("clients: Claude Code's project key for a folder: exact on POSIX; slashes and case do not matter on Windows", () => {
  const projects = { "/home/me/project": {}, "/home/me/project-two": {}, "C:/Work/App": {} };
  assert.equal(projectKey(projects, "/home/me/project", "linux"), "/home/me/project");
  assert.equal(projectKey(projects, "/home/me/project/", "linux"), "/home/me/project");
  assert.equal(projectKey(projects, "/home/me/Project", "linux"), undefined);
  assert.equal(projectKey(projects, "c:\\work\\app", "windows"), "C:/Work/App");
  assert.equal(projectKey(projects, "/", "linux"), undefined);
});

test("clients: entries carry over as they are, remote ones with type, url and headers; type stdio and unknown keys are left out", () => {
  const remote = { type: "http", url: "https://example.invalid/mcp", headers: { Authorization: "Bearer x" } };
  assert.deepEqual(convertEntry(remote), { server: remote, leftOut: [], toolsOff: [] });
  assert.deepEqual(
    convertEntry({ type: "stdio", command: "npx", args: ["a"], env: { K: "v" }, cwd: "/w", disabled: true, autoApprove: [] }),
    { server: { command: "npx", args: ["a"], env: { K: "v" }, cwd: "/w", disabled: true }, leftOut: ["autoApprove"], toolsOff: [] },
  );
  // Windsurf's serverUrl is the url; "disabled": false is the default and goes.
  assert.deepEqual(convertEntry({ serverUrl: "https://example.invalid/mcp", disabled: false }), { server: { url: "https://example.invalid/mcp" }, leftOut: [], toolsOff: [] });
});

test("clients: the paste block in each client's own format", () => {
  assert.deepEqual(JSON.parse(pasteBlock("cursor", "/bin/wb", ["--config", "/c.json"])), {
    mcpServers: { workbench: { command: "/bin/wb", args: ["--config", "/c.json"] } },
  });
  assert.deepEqual(JSON.parse(pasteBlock("vscode", "/bin/wb", ["--config", "/c.json"])), {
    servers: { workbench: { type: "stdio", command: "/bin/wb", args: ["--config", "/c.json"] } },
  });
  assert.deepEqual(JSON.parse(pasteBlock("vscode", "/bin/wb", [], { API_KEY: "${input:api-key}" })).servers.workbench.env, {
    API_KEY: "${input:api-key}",
  });
  assert.equal(
    pasteBlock("claude-code", "/opt/my tools/wb", ["--config", "/c.json"]),
    "claude mcp add --scope user workbench -- '/opt/my tools/wb' --config /c.json",
  );
});

test("clients: comments and trailing commas are removed outside strings only", () => {
  const text = '{ // a comment\n "a": "x // y, }", /* block */ "b": [1, 2,], "c": "q\\"/*",\n}';
  assert.deepEqual(JSON.parse(stripJsonComments(text)), { a: "x // y, }", b: [1, 2], c: 'q"/*' });
});
