/** The command line's frame: help lists every subcommand, unknown ones exit 2, schema prints the shipped file. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { repoRoot } from "../helpers/runtime.ts";
import { runCli } from "../helpers/cli.ts";

test("cli: --help lists every subcommand; a subcommand's --help gives its usage and options", async () => {
  const help = await runCli(["--help"]);
  assert.equal(help.code, 0);
  for (const line of ["check ", "tools ", "call ", "init ", "schema ", "--config PATH"]) {
    assert.ok(help.stdout.includes(`  ${line}`), `${line} in:\n${help.stdout}`);
  }
  const check = await runCli(["check", "--help"]);
  assert.equal(check.code, 0);
  assert.ok(check.stdout.startsWith("Usage: mcp-workbench check [--toolbox NAME] [--json]\n"), check.stdout);
  assert.ok(check.stdout.includes("  --toolbox NAME "), check.stdout);
});

test("cli: an unknown subcommand or option exits 2 with a pointer to --help", async () => {
  const unknown = await runCli(["serve"]);
  assert.equal(unknown.code, 2);
  assert.equal(unknown.stderr, "mcp-workbench: Unknown subcommand 'serve' (see --help)\n");
  const option = await runCli(["tools", "dev", "--verbose"]);
  assert.equal(option.code, 2);
  assert.equal(option.stderr, "mcp-workbench: Unknown option '--verbose' (see --help)\n");
});

test("cli: schema prints the shipped workbench-config.schema.json", async () => {
  const result = await runCli(["schema"]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, readFileSync(`${repoRoot}/workbench-config.schema.json`, "utf8"));
});
