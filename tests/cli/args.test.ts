import { test } from "node:test";
import assert from "node:assert/strict";
import { helpText, parseArgs } from "../../src/cli/args.ts";

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
});

test("cli args: unknown options, stray arguments and a missing path are usage errors", () => {
  assert.deepEqual(parseArgs(["--verbose"]), { kind: "usage-error", message: "Unknown option '--verbose' (see --help)" });
  assert.deepEqual(parseArgs(["serve"]), { kind: "usage-error", message: "Unknown argument 'serve' (see --help)" });
  assert.deepEqual(parseArgs(["--config"]), {
    kind: "usage-error",
    message: "Option '--config' needs a path: --config PATH",
  });
  assert.equal(parseArgs(["--config="]).kind, "usage-error");
});

test("cli args: help names every option", () => {
  const text = helpText("mcp-workbench", "1.2.3");
  for (const word of ["--config PATH", "--help", "--version", "WORKBENCH_CONFIG", "mcp-workbench 1.2.3"]) {
    assert.ok(text.includes(word), word);
  }
});

test("cli args: auth TOOLBOX SERVER with --config and --no-browser", () => {
  assert.deepEqual(parseArgs(["auth", "dev", "linear"]), {
    kind: "auth",
    toolbox: "dev",
    server: "linear",
    configPath: undefined,
    browser: true,
  });
  assert.deepEqual(parseArgs(["auth", "--no-browser", "dev", "--config=w.json", "linear"]), {
    kind: "auth",
    toolbox: "dev",
    server: "linear",
    configPath: "w.json",
    browser: false,
  });
  const needsTwo = { kind: "usage-error", message: "Command 'auth' needs a toolbox and a server: auth TOOLBOX SERVER" };
  assert.deepEqual(parseArgs(["auth", "dev"]), needsTwo);
  assert.deepEqual(parseArgs(["auth", "a", "b", "c"]), needsTwo);
  assert.deepEqual(parseArgs(["auth", "a", "b", "--open"]), { kind: "usage-error", message: "Unknown option '--open' for 'auth' (see --help)" });
});
