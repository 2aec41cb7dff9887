import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_SETTINGS } from "../../src/config/index.ts";
import { ConfigError, loadConfig, locateConfig, resolveConfigPath } from "../../src/config/index.ts";
import { CONFIG_PATH, configErrorOf, loadJson, loadText, memoryReader, rejectsWithConfigError, withServer, IN_FILE } from "./helpers.ts";

const cwd = "/home/me/project";

test("resolveConfigPath: prefers --config, then WORKBENCH_CONFIG, then workbench-config.json in cwd", () => {
  const env = { WORKBENCH_CONFIG: "/etc/workbench.json" };
  assert.equal(resolveConfigPath({ flag: "/opt/flag.json", env, cwd }), "/opt/flag.json");
  assert.equal(resolveConfigPath({ env, cwd }), "/etc/workbench.json");
  assert.equal(resolveConfigPath({ env: {}, cwd }), "/home/me/project/workbench-config.json");
});

test("resolveConfigPath: an empty WORKBENCH_CONFIG counts as unset", () => {
  assert.equal(resolveConfigPath({ env: { WORKBENCH_CONFIG: "" }, cwd }), "/home/me/project/workbench-config.json");
});

test("resolveConfigPath: an empty --config is an error", () => {
  assert.equal(
    configErrorOf(() => resolveConfigPath({ flag: "", env: {}, cwd })),
    "Invalid --config value: expected a file path",
  );
});

test("resolveConfigPath: relative paths resolve against cwd, with . and .. segments applied", () => {
  assert.equal(resolveConfigPath({ flag: "conf/wb.json", env: {}, cwd }), "/home/me/project/conf/wb.json");
  assert.equal(resolveConfigPath({ flag: "./wb.json", env: {}, cwd: "/home/me/" }), "/home/me/wb.json");
  assert.equal(resolveConfigPath({ env: { WORKBENCH_CONFIG: "../shared/wb.json" }, cwd }), "/home/me/shared/wb.json");
  assert.equal(resolveConfigPath({ flag: "../../../../wb.json", env: {}, cwd }), "/wb.json");
  assert.equal(resolveConfigPath({ env: {}, cwd: "/" }), "/workbench-config.json");
});

test("resolveConfigPath: recognises Windows absolute paths", () => {
  const winCwd = "C:\\Users\\me";
  for (const path of ["D:\\config\\wb.json", "d:/config/wb.json", "\\\\server\\share\\wb.json", "\\wb.json"]) {
    assert.equal(resolveConfigPath({ flag: path, env: {}, cwd: winCwd }), path);
  }
});

test("resolveConfigPath: joins relative paths to a Windows cwd with backslashes", () => {
  assert.equal(resolveConfigPath({ env: {}, cwd: "C:\\Users\\me" }), "C:\\Users\\me\\workbench-config.json");
  assert.equal(resolveConfigPath({ flag: "conf/wb.json", env: {}, cwd: "C:\\Users\\me\\" }), "C:\\Users\\me\\conf\\wb.json");
  assert.equal(resolveConfigPath({ flag: "..\\..\\..\\wb.json", env: {}, cwd: "C:\\Users\\me" }), "C:\\wb.json");
  assert.equal(resolveConfigPath({ flag: "..\\wb.json", env: {}, cwd: "\\\\server\\share\\dir" }), "\\\\server\\share\\wb.json");
});

test("loadConfig: returns the path and the validated, expanded config", async () => {
  const text = JSON.stringify({ toolboxes: { dev: { mcpServers: { fs: { command: "${BIN:-npx}" } } } } });
  const loaded = await loadConfig({ path: CONFIG_PATH, readTextFile: memoryReader({ [CONFIG_PATH]: text }), env: {} });
  assert.deepEqual(loaded, {
    path: CONFIG_PATH,
    config: {
      toolboxes: { dev: { description: "", openDetail: "full", mcpServers: { fs: { command: "npx", args: [], env: {}, transport: "stdio", ...DEFAULT_SETTINGS } } } },
    },
  });
});

test("loadConfig: keeps the file's order of toolboxes and servers", async () => {
  const { config } = await loadJson({
    toolboxes: {
      web: { mcpServers: { search: { command: "s" }, browser: { command: "b" } } },
      data: { mcpServers: { sql: { command: "q" }, csv: { command: "c" }, api: { command: "a" } } },
    },
  });
  assert.deepEqual(Object.keys(config.toolboxes), ["web", "data"]);
  assert.deepEqual(Object.keys(config.toolboxes.web.mcpServers), ["search", "browser"]);
  assert.deepEqual(Object.keys(config.toolboxes.data.mcpServers), ["sql", "csv", "api"]);
});

test("loadConfig: a missing file says how to point at another one, for Deno's and Node's errors alike", async () => {
  const message = `Configuration file not found: '${CONFIG_PATH}' (set another path with --config PATH or the WORKBENCH_CONFIG environment variable)`;
  await rejectsWithConfigError(loadConfig({ path: CONFIG_PATH, readTextFile: memoryReader({}), env: {} }), message);
  const enoent = Object.assign(new Error("ENOENT: no such file or directory"), { code: "ENOENT" });
  await rejectsWithConfigError(loadConfig({ path: CONFIG_PATH, readTextFile: () => Promise.reject(enoent), env: {} }), message);
});

test("locateConfig: the per-user file comes after ./workbench-config.json, only when neither --config nor WORKBENCH_CONFIG names one", () => {
  const userFile = "/home/me/.config/mcp-workbench/workbench-config.json";
  assert.deepEqual(locateConfig({ env: {}, cwd, userFile }), { path: `${cwd}/workbench-config.json`, orElse: userFile });
  assert.deepEqual(locateConfig({ env: { WORKBENCH_CONFIG: "" }, cwd, userFile }).orElse, userFile);
  assert.deepEqual(locateConfig({ flag: "wb.json", env: {}, cwd, userFile }), { path: `${cwd}/wb.json` });
  assert.deepEqual(locateConfig({ env: { WORKBENCH_CONFIG: "/etc/wb.json" }, cwd, userFile }), { path: "/etc/wb.json" });
  assert.deepEqual(locateConfig({ env: {}, cwd }), { path: `${cwd}/workbench-config.json` });
  assert.deepEqual(locateConfig({ env: {}, cwd: "/home/me/.config/mcp-workbench", userFile }), { path: userFile });
});

test("loadConfig: reads the per-user file when the first is not there; names both when neither is", async () => {
  const userFile = "/home/me/.config/mcp-workbench/workbench-config.json";
  const text = JSON.stringify({ toolboxes: { a: { mcpServers: {} } } });
  const loaded = await loadConfig({ path: CONFIG_PATH, orElse: userFile, readTextFile: memoryReader({ [userFile]: text }), env: {} });
  assert.equal(loaded.path, userFile);
  const first = await loadConfig({ path: CONFIG_PATH, orElse: userFile, readTextFile: memoryReader({ [CONFIG_PATH]: text, [userFile]: "{" }), env: {} });
  assert.equal(first.path, CONFIG_PATH);
  await rejectsWithConfigError(
    loadConfig({ path: CONFIG_PATH, orElse: userFile, readTextFile: memoryReader({}), env: {} }),
    `Configuration file not found: '${CONFIG_PATH}' nor '${userFile}' (write one with mcp-workbench init, or set another path ` +
      "with --config PATH or the WORKBENCH_CONFIG environment variable)",
  );
});

test("loadConfig: other read errors pass on their message", async () => {
  const denied = Object.assign(new Error("Permission denied (os error 13)"), { name: "PermissionDenied" });
  await rejectsWithConfigError(
    loadConfig({ path: CONFIG_PATH, readTextFile: () => Promise.reject(denied), env: {} }),
    `Cannot read configuration file '${CONFIG_PATH}': Permission denied (os error 13)`,
  );
  await rejectsWithConfigError(
    loadConfig({ path: CONFIG_PATH, readTextFile: () => Promise.reject("disk on fire"), env: {} }),
    `Cannot read configuration file '${CONFIG_PATH}': disk on fire`,
  );
});

test("loadConfig: read errors are kept as the cause", async () => {
  const denied = new Error("Permission denied");
  await assert.rejects(
    loadConfig({ path: CONFIG_PATH, readTextFile: () => Promise.reject(denied), env: {} }),
    (error) => error instanceof ConfigError && error.cause === denied,
  );
});

test("loadConfig: validates before expanding, so shape errors come first", async () => {
  await rejectsWithConfigError(
    loadJson({ toolboxes: { dev: { mcpServers: { fs: { command: "${UNSET}", transport: "ws" } } } } }),
    IN_FILE + 'Invalid configuration at toolboxes.dev.mcpServers.fs.transport: expected "stdio", "http" or "sse"',
  );
});

test("loadConfig: a problem found alone names the file too", async () => {
  await rejectsWithConfigError(
    loadJson({ toolboxes: { dev: { mcpServer: {} } } }),
    `In configuration file '${CONFIG_PATH}': Invalid configuration at toolboxes.dev: unknown key 'mcpServer' (did you mean 'mcpServers'?)`,
  );
  // Invalid JSON names it in its own words, once.
  await rejectsWithConfigError(loadText("{"), `Invalid JSON in configuration file '${CONFIG_PATH}' at line 1, column 2: unexpected end of file`);
});

test("loadConfig: every problem of a file is listed under its name, each with its location", async () => {
  await rejectsWithConfigError(
    loadJson({ toolboxes: { dev: { mcpServers: { fs: { command: "x", cwd: "${D:-}" }, gs: { command: "${CMD:-}", args: ["${1A}"] } } } } }),
    [
      `3 problems in configuration file '${CONFIG_PATH}':`,
      "  - Invalid configuration at toolboxes.dev.mcpServers.fs.cwd: expected a non-empty string after expanding environment variables",
      "  - Invalid configuration at toolboxes.dev.mcpServers.gs.command: expected a non-empty string after expanding environment variables",
      "  - Invalid variable reference at toolboxes.dev.mcpServers.gs.args[0]: expected ${NAME} or ${NAME:-default}",
    ].join("\n"),
  );
  await rejectsWithConfigError(
    loadJson({ toolboxes: { a: { mcpServers: { s: { command: "x", args: 1 } } }, b: 1 } }),
    [
      `2 problems in configuration file '${CONFIG_PATH}':`,
      "  - Invalid configuration at toolboxes.a.mcpServers.s.args: expected an array of strings",
      "  - Invalid configuration at toolboxes.b: expected an object",
    ].join("\n"),
  );
});

test("loadConfig: each ${VAR:-default} that falls back is reported to onFallback, by name and location", async () => {
  const seen: string[] = [];
  await loadConfig({
    path: CONFIG_PATH,
    readTextFile: memoryReader({
      [CONFIG_PATH]: JSON.stringify(withServer({ command: "${CMD:-npx}", env: { K: "${KEY:-none}", L: "${SET:-x}" } })),
    }),
    env: { SET: "1" },
    onFallback: (name, location) => seen.push(`${name} at ${location}`),
  });
  assert.deepEqual(seen, ["CMD at toolboxes.dev.mcpServers.fs.command", "KEY at toolboxes.dev.mcpServers.fs.env.K"]);
});
