import { test } from "node:test";
import assert from "node:assert/strict";
import { helpText, parseArgs, SUBCOMMANDS } from "../../src/cli/args.ts";
import { httpAddress } from "../../src/cli/serve.ts";

test("cli args: no arguments serves with the default config", () => {
  assert.deepEqual(parseArgs([]), { kind: "serve", configPath: undefined });
});

test("cli args: --config PATH and --config=PATH", () => {
  assert.deepEqual(parseArgs(["--config", "/a/b.json"]), { kind: "serve", configPath: "/a/b.json" });
  assert.deepEqual(parseArgs(["--config=rel.json"]), { kind: "serve", configPath: "rel.json" });
});

test("cli args: --help, -h, --version, -V", () => {
  assert.equal(parseArgs(["--help"]).kind, "help");
  assert.equal(parseArgs(["-h"]).kind, "help");
  assert.equal(parseArgs(["--version"]).kind, "version");
  assert.equal(parseArgs(["--config", "x", "-V"]).kind, "version");
  assert.deepEqual(parseArgs(["call", "--help"]), { kind: "help", subcommand: "call" });
});

test("cli args: unknown options, subcommands and a missing path are usage errors", () => {
  assert.deepEqual(parseArgs(["--verbose"]), { kind: "usage-error", message: "Unknown option '--verbose' (see --help)" });
  assert.deepEqual(parseArgs(["serves"]), { kind: "usage-error", message: "Unknown subcommand 'serves' (see --help)" });
  assert.deepEqual(parseArgs(["--config"]), {
    kind: "usage-error",
    message: "Option '--config' needs a path: --config PATH",
  });
  assert.equal(parseArgs(["--config="]).kind, "usage-error");
  assert.deepEqual(parseArgs(["check", "--toolbox"]), {
    kind: "usage-error",
    message: "Option '--toolbox' needs a value: --toolbox NAME",
  });
  assert.deepEqual(parseArgs(["check", "--json=yes"]), { kind: "usage-error", message: "Option '--json' takes no value (see --help)" });
  assert.deepEqual(parseArgs(["schema", "extra"]), { kind: "usage-error", message: "Unexpected argument 'extra' (see --help)" });
  assert.deepEqual(parseArgs(["tools"]), {
    kind: "usage-error",
    message: "Missing argument toolbox: tools <toolbox> [--json] (see --help)",
  });
});

test("cli args: options stand before or after the positional arguments; - is an argument", () => {
  const expected = {
    kind: "subcommand",
    name: "call",
    configPath: "/c.json",
    options: {},
    positionals: ["dev", "fs", "read", "-"],
  };
  assert.deepEqual(parseArgs(["call", "dev", "fs", "read", "-", "--config", "/c.json"]), expected);
  assert.deepEqual(parseArgs(["--config=/c.json", "call", "dev", "fs", "read", "-"]), expected);
  assert.deepEqual(parseArgs(["check", "--json", "--toolbox", "dev"]), {
    kind: "subcommand",
    name: "check",
    configPath: undefined,
    options: { "--json": true, "--toolbox": "dev" },
    positionals: [],
  });
  assert.deepEqual(parseArgs(["init", "--from=cursor", "--force"]).kind, "subcommand");
});

test("cli args: help names every option and every subcommand", () => {
  const text = helpText("mcp-workbench", "1.2.3");
  for (const word of ["--config PATH", "--help", "--version", "WORKBENCH_CONFIG", "mcp-workbench 1.2.3", ...Object.keys(SUBCOMMANDS)]) {
    assert.ok(text.includes(word), word);
  }
  const init = helpText("mcp-workbench", "1.2.3", "init");
  for (const word of ["--from SOURCE", "--toolbox NAME", "--out PATH", "--force", "claude-desktop", "--config PATH"]) {
    assert.ok(init.includes(word), word);
  }
});

test("cli args: every help names the per-user file as the last default of --config, and init's --out default", () => {
  const file = "/home/me/.config/mcp-workbench/workbench-config.json";
  const configLine = `--config PATH   Configuration file (default: $WORKBENCH_CONFIG, else ./workbench-config.json, else ${file})`;
  assert.ok(helpText("mcp-workbench", "1.2.3", undefined, file).includes(`  ${configLine}\n`));
  for (const sub of Object.keys(SUBCOMMANDS).filter((name) => name !== "init") as (keyof typeof SUBCOMMANDS)[]) {
    const text = helpText("mcp-workbench", "1.2.3", sub, file);
    assert.match(text, new RegExp(`--config PATH +Configuration file \\(default: \\$WORKBENCH_CONFIG, else \\./workbench-config\\.json, else ${file.replaceAll(".", "\\.")}\\)`), sub);
  }
  assert.match(helpText("mcp-workbench", "1.2.3", "init", file), new RegExp(`--out PATH +Where to write \\(default: '${file.replaceAll(".", "\\.")}'\\)`));
  // Without a home folder there is no such file to name.
  assert.ok(helpText("mcp-workbench", "1.2.3").includes("else ./workbench-config.json, else the per-user file)"));
});

test("cli args: auth <toolbox> <server> with --config and --no-browser", () => {
  assert.deepEqual(parseArgs(["auth", "dev", "linear"]), {
    kind: "subcommand",
    name: "auth",
    configPath: undefined,
    options: {},
    positionals: ["dev", "linear"],
  });
  assert.deepEqual(parseArgs(["auth", "--no-browser", "dev", "--config=w.json", "linear"]), {
    kind: "subcommand",
    name: "auth",
    configPath: "w.json",
    options: { "--no-browser": true },
    positionals: ["dev", "linear"],
  });
  assert.deepEqual(parseArgs(["auth", "dev"]), {
    kind: "usage-error",
    message: "Missing argument server: auth <toolbox> <server> [--scope SCOPES] [--no-browser] (see --help)",
  });
  assert.deepEqual(parseArgs(["auth", "a", "b", "c"]), { kind: "usage-error", message: "Unexpected argument 'c' (see --help)" });
  assert.deepEqual(parseArgs(["auth", "a", "b", "--open"]), { kind: "usage-error", message: "Unknown option '--open' (see --help)" });
});

test("cli args: serve --http [HOST:]PORT", () => {
  assert.deepEqual(parseArgs(["serve", "--http", "0", "--config", "c.json"]), {
    kind: "subcommand",
    name: "serve",
    configPath: "c.json",
    options: { "--http": "0" },
    positionals: [],
  });
  assert.deepEqual(parseArgs(["serve"]), { kind: "subcommand", name: "serve", configPath: undefined, options: {}, positionals: [] });
  assert.deepEqual(httpAddress("8080"), { hostname: "127.0.0.1", port: 8080 });
  assert.deepEqual(httpAddress("0.0.0.0:0"), { hostname: "0.0.0.0", port: 0 });
  assert.deepEqual(httpAddress("[::1]:9"), { hostname: "::1", port: 9 });
  for (const bad of ["", "host", "1:2:3", "70000", "h:-1"]) assert.equal(httpAddress(bad), undefined, bad);
});

test("cli args: --toolboxes NAMES scopes stdio serving, with or without the serve subcommand; other commands refuse it", () => {
  assert.deepEqual(parseArgs(["--toolboxes", "dev,docs"]), { kind: "serve", configPath: undefined, toolboxes: "dev,docs" });
  assert.deepEqual(parseArgs(["--config", "c.json", "--toolboxes=dev"]), { kind: "serve", configPath: "c.json", toolboxes: "dev" });
  assert.deepEqual(parseArgs(["serve", "--toolboxes", "dev"]), { kind: "subcommand", name: "serve", configPath: undefined, options: { "--toolboxes": "dev" }, positionals: [] });
  assert.equal(parseArgs(["check", "--toolboxes", "dev"]).kind, "usage-error");
  assert.equal(parseArgs(["--toolboxes"]).kind, "usage-error");
});
