/** The command line's frame: help lists every subcommand, unknown ones exit 2, schema prints the shipped file, init --config. */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { repoRoot } from "../helpers/runtime.ts";
import { runCli } from "../helpers/cli.ts";
import { removeTempDirs, tempDir } from "../helpers/workbench.ts";

after(removeTempDirs);

test("cli: --help lists every subcommand; a subcommand's --help gives its usage and options", async () => {
  const help = await runCli(["--help"]);
  assert.equal(help.code, 0);
  for (const line of ["serve ", "check ", "tools ", "call ", "init ", "schema ", "--config PATH"]) {
    assert.ok(help.stdout.includes(`  ${line}`), `${line} in:\n${help.stdout}`);
  }
  const check = await runCli(["check", "--help"], { env: { HOME: "/home/someone", XDG_CONFIG_HOME: "" } });
  assert.equal(check.code, 0);
  // The per-user file serving reads last is named, for this HOME.
  assert.ok(check.stdout.includes(", else /home/someone/.config/mcp-workbench/workbench-config.json)"), check.stdout);
  assert.ok(check.stdout.startsWith("Usage: mcp-workbench check [--toolbox NAME] [--json]\n"), check.stdout);
  assert.ok(check.stdout.includes("  --toolbox NAME "), check.stdout);
});

test("cli: an unknown subcommand or option exits 2 with a pointer to --help", async () => {
  const unknown = await runCli(["serves"]);
  assert.equal(unknown.code, 2);
  assert.equal(unknown.stderr, "mcp-workbench: Unknown subcommand 'serves' (see --help)\n");
  const option = await runCli(["tools", "dev", "--verbose"]);
  assert.equal(option.code, 2);
  assert.equal(option.stderr, "mcp-workbench: Unknown option '--verbose' (see --help)\n");
});

test("cli: schema prints the shipped workbench-config.schema.json", async () => {
  const result = await runCli(["schema"]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, readFileSync(`${repoRoot}/workbench-config.schema.json`, "utf8"));
});

test("cli: init --config PATH writes PATH, as --out does (its help says so); with --out naming another file it exits 2", async () => {
  const help = await runCli(["init", "--help"]);
  assert.match(help.stdout, /\n {2}--config PATH +The same as --out: where to write\n/);
  const root = tempDir();
  const env = { HOME: root, XDG_CONFIG_HOME: `${root}/config` };
  const written = await runCli(["init", "--config", "wb.json"], { env, cwd: root });
  assert.equal(written.code, 0, written.stderr);
  assert.ok(JSON.parse(readFileSync(`${root}/wb.json`, "utf8")).toolboxes, "the starter file is at --config's path");
  assert.ok(written.stdout.includes(`check --config ${root}/wb.json\n`), written.stdout);
  assert.equal(existsSync(`${root}/config`), false, "nothing in the default place");
  const same = await runCli(["init", "--config", "wb.json", "--out", `${root}/wb.json`, "--force"], { env, cwd: root });
  assert.equal(same.code, 0, same.stderr);
  const both = await runCli(["init", "--config", "wb.json", "--out", "other.json"], { env, cwd: root });
  assert.equal(both.code, 2);
  assert.equal(
    both.stderr,
    `mcp-workbench: Options '--out' and '--config' name different files: '${root}/other.json' and '${root}/wb.json' (give one)\n`,
  );
  assert.equal(existsSync(`${root}/other.json`), false);
});
