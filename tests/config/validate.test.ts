import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_SETTINGS, type StdioServerConfig } from "../../src/config/index.ts";
import { validateConfig } from "../../src/config/index.ts";
import { configErrorOf, withServer } from "./helpers.ts";

const errorFor = (data: unknown) => configErrorOf(() => validateConfig(data));
const serverError = (server: Record<string, unknown>) => errorFor(withServer(server));
const AT_FS = "Invalid configuration at toolboxes.dev.mcpServers.fs";

test("validateConfig: server fields: args must be an array of strings, reported at the array", () => {
  assert.equal(serverError({ command: "x", args: "--verbose" }), `${AT_FS}.args: expected an array of strings`);
  assert.equal(serverError({ command: "x", args: ["a", 1] }), `${AT_FS}.args: expected an array of strings`);
  assert.equal(serverError({ command: "x", args: null }), `${AT_FS}.args: expected an array of strings`);
});

test("validateConfig: server fields: env must be an object of string values", () => {
  assert.equal(serverError({ command: "x", env: ["A=1"] }), `${AT_FS}.env: expected an object of string values`);
  assert.equal(serverError({ command: "x", env: { PORT: 8080 } }), `${AT_FS}.env: expected an object of string values`);
});

test("validateConfig: server fields: command must be a non-empty string: missing, empty or another type", () => {
  const expected = `${AT_FS}.command: expected a non-empty string`;
  assert.equal(serverError({ args: [] }), expected);
  assert.equal(serverError({ command: "" }), expected);
  assert.equal(serverError({ command: ["npx", "x"] }), expected);
});

test("validateConfig: server fields: toolFilters must be an array of strings", () => {
  assert.equal(serverError({ command: "x", toolFilters: "read_*" }), `${AT_FS}.toolFilters: expected an array of strings`);
  assert.equal(serverError({ command: "x", toolFilters: [true] }), `${AT_FS}.toolFilters: expected an array of strings`);
});

test("validateConfig: server fields: transport and type are stdio, http or sse", () => {
  const expected = 'expected "stdio", "http" or "sse"';
  assert.equal(serverError({ command: "x", transport: "ws" }), `${AT_FS}.transport: ${expected}`);
  assert.equal(serverError({ url: "http://127.0.0.1:1/mcp", type: "streamable" }), `${AT_FS}.type: ${expected}`);
});

test("validateConfig: server fields: cwd must be a non-empty string", () => {
  assert.equal(serverError({ command: "x", cwd: 1 }), `${AT_FS}.cwd: expected a non-empty string`);
  assert.equal(serverError({ command: "x", cwd: "" }), `${AT_FS}.cwd: expected a non-empty string`);
});

test("validateConfig: server fields: connectTimeoutMs must be a positive integer that setTimeout can honour", () => {
  const expected = `${AT_FS}.connectTimeoutMs: expected a positive integer of milliseconds (at most 2147483647)`;
  for (const value of [0, -1, 1.5, "1000", 2 ** 31]) {
    assert.equal(serverError({ command: "x", connectTimeoutMs: value }), expected);
  }
  const config = validateConfig(withServer({ command: "x", connectTimeoutMs: 2 ** 31 - 1 }));
  assert.equal(config.toolboxes.dev.mcpServers.fs.connectTimeoutMs, 2 ** 31 - 1);
});

test("validateConfig: server fields: a server that is not an object", () => {
  assert.equal(serverError(["npx"] as never), `${AT_FS}: expected an object`);
  assert.equal(errorFor(withServer("npx" as never)), `${AT_FS}: expected an object`);
});

test("validateConfig: structure: description must be a string", () => {
  assert.equal(
    errorFor({ toolboxes: { dev: { description: 42 } } }),
    "Invalid configuration at toolboxes.dev.description: expected a string",
  );
});

test("validateConfig: structure: unknown keys are named at every level, before a missing key they may replace", () => {
  assert.equal(serverError({ comand: "npx" }), `${AT_FS}: unknown key 'comand' (did you mean 'command'?)`);
  assert.equal(
    errorFor({ toolboxes: { dev: { servers: {} } } }),
    "Invalid configuration at toolboxes.dev: unknown key 'servers' (did you mean 'mcpServers'?)",
  );
  assert.equal(errorFor({ toolboxes: {}, toolbox: {} }), "Invalid configuration: unknown key 'toolbox'");
});

test("validateConfig: structure: a misspelt key is told the key it stands for, unless that one is there too", () => {
  assert.equal(
    errorFor({ toolboxes: { dev: { description: "d", mcpServer: {} } } }),
    "Invalid configuration at toolboxes.dev: unknown key 'mcpServer' (did you mean 'mcpServers'?)",
  );
  assert.equal(serverError({ command: "x", toolfilters: [] }), `${AT_FS}: unknown key 'toolfilters' (did you mean 'toolFilters'?)`);
  assert.equal(serverError({ command: "x", arg: [] }), `${AT_FS}: unknown key 'arg' (did you mean 'args'?)`);
  assert.equal(serverError({ command: "x", toolFilters: [], toolfilters: [] }), `${AT_FS}: unknown key 'toolfilters'`);
  assert.equal(serverError({ command: "x", banana: 1 }), `${AT_FS}: unknown key 'banana'`);
  assert.equal(errorFor({ toolbox: {} }), "Invalid configuration: unknown key 'toolbox' (did you mean 'toolboxes'?)");
});

test("validateConfig: structure: toolboxes must be present and an object", () => {
  const expected = "Invalid configuration at toolboxes: expected an object of toolboxes";
  assert.equal(errorFor({}), expected);
  assert.equal(errorFor({ toolboxes: [] }), expected);
  assert.equal(errorFor({ toolboxes: null }), expected);
});

test("validateConfig: structure: the root must be an object", () => {
  for (const root of [[], "toolboxes", null, 42]) {
    assert.equal(errorFor(root), 'Invalid configuration: expected a JSON object with a "toolboxes" key');
  }
});

test("validateConfig: structure: a toolbox and its mcpServers must be objects", () => {
  assert.equal(errorFor({ toolboxes: { dev: "x" } }), "Invalid configuration at toolboxes.dev: expected an object");
  assert.equal(errorFor({ toolboxes: { dev: [] } }), "Invalid configuration at toolboxes.dev: expected an object");
  assert.equal(
    errorFor({ toolboxes: { dev: { mcpServers: [{ command: "x" }] } } }),
    "Invalid configuration at toolboxes.dev.mcpServers: expected an object of servers",
  );
});

test("validateConfig: structure: $schema is accepted as a string and left out of the result", () => {
  const config = validateConfig({ $schema: "./workbench.schema.json", toolboxes: {} });
  assert.deepEqual(config, { toolboxes: {} });
  assert.equal(errorFor({ $schema: 1, toolboxes: {} }), "Invalid configuration at $schema: expected a string");
});

test("validateConfig: structure: names that valibot records would silently drop are rejected", () => {
  assert.equal(
    errorFor({ toolboxes: { constructor: {} } }),
    "Invalid configuration at toolboxes: name 'constructor' is reserved",
  );
  assert.equal(
    errorFor(JSON.parse('{"toolboxes": {"dev": {"mcpServers": {"__proto__": {"command": "x"}}}}}')),
    "Invalid configuration at toolboxes.dev.mcpServers: name '__proto__' is reserved",
  );
});

test("validateConfig: structure: every problem is reported, each at its location, in file order", () => {
  assert.equal(
    serverError({ command: "x", args: 1, env: 2, transport: "ws" }),
    [
      "3 problems in the configuration:",
      `  - ${AT_FS}.args: expected an array of strings`,
      `  - ${AT_FS}.env: expected an object of string values`,
      `  - ${AT_FS}.transport: expected "stdio", "http" or "sse"`,
    ].join("\n"),
  );
  assert.equal(
    errorFor({ toolboxes: { a: { description: 1 }, b: { mcpServers: { s: { comand: "x", cwd: "" } } } }, inheritEnv: 1 }),
    [
      "4 problems in the configuration:",
      "  - Invalid configuration at toolboxes.a.description: expected a string",
      "  - Invalid configuration at toolboxes.b.mcpServers.s.cwd: expected a non-empty string",
      "  - Invalid configuration at toolboxes.b.mcpServers.s: unknown key 'comand' (did you mean 'command'?)",
      "  - Invalid configuration at inheritEnv: expected true or false",
    ].join("\n"),
  );
});

test("validateConfig: structure: every unknown key of an object is named in one problem", () => {
  assert.equal(serverError({ command: "x", cmd: 1, argv: [] }), `${AT_FS}: unknown keys 'cmd' (did you mean 'cwd'?), 'argv' (did you mean 'args'?)`);
});

test("validateConfig: structure: a file in an MCP client's shape is told what to expect and how to convert it", () => {
  const advice = (key: string, from: string) =>
    `Invalid configuration: missing key 'toolboxes' (this file has "${key}", as an MCP client's configuration ` +
    `does); expected {"toolboxes": {"NAME": {"description": "...", "mcpServers": {...}}}}; convert such a file ` +
    `with: mcp-workbench init --from ${from}`;
  const servers = { fs: { command: "npx" } };
  assert.equal(errorFor({ mcpServers: servers }), advice("mcpServers", "PATH"));
  assert.equal(
    configErrorOf(() => validateConfig({ servers, inputs: [] }, "/home/me/.vscode/mcp.json")),
    advice("servers", "'/home/me/.vscode/mcp.json'"),
  );
  assert.equal(
    errorFor({ mcpServers: servers, callTimeoutMs: 0 }),
    [
      "2 problems in the configuration:",
      `  - ${advice("mcpServers", "PATH")}`,
      "  - Invalid configuration at callTimeoutMs: expected a positive integer of milliseconds (at most 2147483647)",
    ].join("\n"),
  );
});

test("validateConfig: paths: keys with dots, spaces, quotes or nothing are quoted; hyphens and underscores are not", () => {
  const box = (name: string) => errorFor({ toolboxes: { [name]: { description: 1 } } });
  assert.equal(box("my.box"), 'Invalid configuration at toolboxes["my.box"].description: expected a string');
  assert.equal(box("my box"), 'Invalid configuration at toolboxes["my box"].description: expected a string');
  assert.equal(box('say "hi"'), 'Invalid configuration at toolboxes["say \\"hi\\""].description: expected a string');
  assert.equal(box(""), 'Invalid configuration at toolboxes[""].description: expected a string');
  assert.equal(box("dev-tools_2"), "Invalid configuration at toolboxes.dev-tools_2.description: expected a string");
  assert.equal(
    errorFor({ toolboxes: { "a.b": { mcpServers: { "x y": { command: "" } } } } }),
    'Invalid configuration at toolboxes["a.b"].mcpServers["x y"].command: expected a non-empty string',
  );
});

const SECRET = "hunter2-secret";

test("validateConfig: values never appear in messages: wrongly typed values are not quoted", () => {
  const messages = [
    serverError({ command: "x", args: [SECRET, 1] }),
    serverError({ command: "x", transport: SECRET }),
    serverError({ command: "x", connectTimeoutMs: SECRET }),
    serverError({ command: "x", env: { TOKEN: SECRET, PORT: 1 } }),
    serverError({ command: "x", cwd: [SECRET] }),
    errorFor({ toolboxes: { dev: { description: [SECRET] } } }),
    errorFor({ toolboxes: SECRET }),
    errorFor(SECRET),
  ];
  for (const message of messages) assert.ok(!message.includes(SECRET), message);
});

test("validateConfig: result: applies defaults: description, openDetail, mcpServers, args, env and transport", () => {
  const config = validateConfig({ toolboxes: { empty: {}, dev: { mcpServers: { fs: { command: "npx" } } } } });
  assert.deepEqual(config, {
    toolboxes: {
      empty: { description: "", openDetail: "full", mcpServers: {} },
      dev: { description: "", openDetail: "full", mcpServers: { fs: { command: "npx", args: [], env: {}, transport: "stdio", ...DEFAULT_SETTINGS } } },
    },
  });
});

test("validateConfig: result: defaults are fresh objects for every server", () => {
  const config = validateConfig({ toolboxes: { dev: { mcpServers: { a: { command: "x" }, b: { command: "y" } } } } });
  const { a, b } = config.toolboxes.dev.mcpServers as Record<string, StdioServerConfig>;
  assert.notEqual(a.args, b.args);
  assert.notEqual(a.env, b.env);
});

test("validateConfig: result: keeps every field given", () => {
  const server = {
    command: "npx",
    args: ["-y", "server"],
    env: { A: "1" },
    cwd: "/srv",
    toolFilters: ["read_*"],
    transport: "stdio",
    callTimeoutMs: 1000,
    maxCallTimeMs: 2000,
    maxMessageBytes: 4096,
    inheritEnv: true,
    connectTimeoutMs: 5000,
    validateArguments: false,
    idleTimeoutMs: 60000,
    roots: false,
    maxResultTokens: 7000,
    pin: false,
    confirmMaxChars: 20000,
  };
  assert.deepEqual(validateConfig(withServer(server)).toolboxes.dev.mcpServers.fs, server);
});

test("validateConfig: pin: on by default; false on a server or at the top level turns it off; a boolean", () => {
  const config = validateConfig({
    pin: false,
    toolboxes: { dev: { mcpServers: { a: { command: "x", pin: true }, b: { command: "y" } } }, other: { mcpServers: { c: { command: "z" } } } },
  });
  assert.equal(config.toolboxes.dev.mcpServers.a.pin, true);
  assert.equal(config.toolboxes.dev.mcpServers.b.pin, false);
  assert.equal(validateConfig({ toolboxes: { dev: { mcpServers: { c: { command: "z" } } } } }).toolboxes.dev.mcpServers.c.pin, true);
  assert.throws(() => validateConfig(withServer({ command: "x", pin: "no" })), /pin.*expected true or false/);
});

test("validateConfig: result: keeps the file's order of toolboxes and servers", () => {
  const config = validateConfig(JSON.parse(`{"toolboxes": {
    "zeta": {"mcpServers": {"zz": {"command": "z"}, "aa": {"command": "a"}, "mm": {"command": "m"}}},
    "alpha": {},
    "mid": {}
  }}`));
  assert.deepEqual(Object.keys(config.toolboxes), ["zeta", "alpha", "mid"]);
  assert.deepEqual(Object.keys(config.toolboxes.zeta.mcpServers), ["zz", "aa", "mm"]);
});

test("validateConfig: settings: a server's own value, else the top level's, else the default", () => {
  const config = validateConfig({
    callTimeoutMs: 5_000,
    inheritEnv: true,
    toolboxes: { dev: { mcpServers: { a: { command: "x", callTimeoutMs: 7_000 }, b: { command: "y" } } } },
  });
  const { a, b } = config.toolboxes.dev.mcpServers;
  assert.equal(a.callTimeoutMs, 7_000);
  assert.equal(b.callTimeoutMs, 5_000);
  assert.equal(a.inheritEnv, true);
  assert.equal(b.connectTimeoutMs, DEFAULT_SETTINGS.connectTimeoutMs);
  assert.equal(b.maxCallTimeMs, 600_000);
  assert.equal(b.maxMessageBytes, 64 * 1024 * 1024);
});

test("validateConfig: settings: bad values are located at the top level and per server", () => {
  assert.throws(() => validateConfig({ toolboxes: {}, callTimeoutMs: 0 }), {
    message: "Invalid configuration at callTimeoutMs: expected a positive integer of milliseconds (at most 2147483647)",
  });
  assert.equal(
    serverError({ command: "x", maxMessageBytes: 1.5 }),
    `${AT_FS}.maxMessageBytes: expected a positive integer of bytes (at most 536870912)`,
  );
  assert.equal(serverError({ command: "x", inheritEnv: "yes" }), `${AT_FS}.inheritEnv: expected true or false`);
  assert.equal(serverError({ command: "x", roots: "no" }), `${AT_FS}.roots: expected true or false`);
  assert.equal(
    serverError({ command: "x", idleTimeoutMs: -1 }),
    `${AT_FS}.idleTimeoutMs: expected an integer of milliseconds, 0 for never (at most 2147483647)`,
  );
  assert.deepEqual(validateConfig({ toolboxes: {}, idleTimeoutMs: 0 }).toolboxes, {});
});

test("validateConfig: a server set \"disabled\": true is set aside by name, out of mcpServers; false or absent keeps it", () => {
  const config = validateConfig({
    toolboxes: { dev: { mcpServers: { a: { command: "x", disabled: false }, off: { url: "https://example.invalid/mcp", disabled: true }, b: { command: "y" } } } },
  });
  assert.deepEqual(Object.keys(config.toolboxes.dev.mcpServers), ["a", "b"]);
  assert.deepEqual(config.toolboxes.dev.disabledServers, ["off"]);
  assert.equal("disabled" in config.toolboxes.dev.mcpServers.a, false);
  assert.equal(validateConfig(withServer({ command: "x" })).toolboxes.dev.disabledServers, undefined);
  assert.equal(serverError({ command: "x", disabled: "yes" }), `${AT_FS}.disabled: expected true or false`);
});

test('validateConfig: toolSearch is true, false or an object whose only key is "learn" (issue 53)', () => {
  const toolSearch = (value: unknown) => validateConfig({ toolSearch: value, toolboxes: {} }).toolSearch;
  assert.equal(toolSearch(true), true);
  assert.equal(toolSearch(false), undefined);
  assert.deepEqual(toolSearch({ learn: false }), { learn: false });
  assert.deepEqual(toolSearch({}), {});
  for (const bad of [{ learn: "no" }, { lern: false }, "yes"]) {
    assert.match(configErrorOf(() => validateConfig({ toolSearch: bad, toolboxes: {} })), /toolSearch: expected true, false or an object such as \{"learn": false\}/);
  }
});
