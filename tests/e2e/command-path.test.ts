/**
 * Commands found as the user's shell finds them: the workbench runs with a bare PATH (as from a
 * desktop client) and a fake SHELL whose login PATH adds a folder holding a server's launcher.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import process from "node:process";
import { fixture, runScript, workbenchEnv } from "../helpers/runtime.ts";
import { tempDir, withWorkbench, writeConfig } from "../helpers/workbench.ts";
import { waitGone } from "../helpers/procs.ts";
import { runCli } from "../helpers/cli.ts";
import { errorText, FIXTURE_TOOLS, opened, openToolbox, toolsOf } from "../helpers/toolbox.ts";
import type { CheckReport } from "../../src/cli/check.ts";

const LAUNCHER = "workbench-login-path-launcher";

/**
 * A folder with a fake login shell, which puts `<dir>/bin` first on its PATH, and in that folder a
 * launcher that notes the PATH it got and starts the fixture server.
 */
function loginShellSetup() {
  const dir = tempDir();
  mkdirSync(`${dir}/bin`);
  const { command, args } = runScript(fixture("fixture-server.ts"));
  const quoted = [command, ...args].map((word) => `'${word}'`).join(" ");
  writeExecutable(`${dir}/bin/${LAUNCHER}`, `printf '%s' "$PATH" > '${dir}/child-path'\nexec ${quoted}`);
  writeExecutable(
    `${dir}/shell`,
    `echo "Last login: today"\n[ "$1" = -lc ] || exit 9\nPATH='${dir}/bin:/usr/bin:/bin' exec /bin/sh -c "$2"`,
  );
  return { dir, shell: `${dir}/shell`, loginPath: `${dir}/bin:/usr/bin:/bin` };
}

function writeExecutable(path: string, body: string): void {
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
}

/** Our PATH in tests: the bare folder of a few system tools. */
const barePath = () => workbenchEnv().PATH;

/**
 * The PATH the workbench had, named in the line that says which PATH found the command: the bare
 * one, after what `deno run` puts first (its node_compat_bin) when the tests run from source.
 */
function ourPath(line: string): string {
  const ours = /is not on PATH '([^']*)'/.exec(line)?.[1] ?? "";
  assert.ok(ours === barePath() || ours.endsWith(`:${barePath()}`), line);
  return ours;
}

/** True when `path` is our PATH (as in ourPath) followed by `added`. */
function isOursThen(path: string, added: string[]): boolean {
  const expected = [barePath(), ...added].join(":");
  return path === expected || path.endsWith(`:${expected}`);
}

const config = { toolboxes: { dev: { description: "d", mcpServers: { fx: { command: LAUNCHER, env: { FIXTURE_LABEL: "A" } } } } } };

test("command path: a command found only on the login shell's PATH starts, runs with that PATH, and one line says so; a server's own PATH stands", async () => {
  const setup = loginShellSetup();
  const own = { command: LAUNCHER, env: { PATH: "/opt/none/bin" } };
  try {
    await withWorkbench({ toolboxes: { dev: { ...config.toolboxes.dev, mcpServers: { ...config.toolboxes.dev.mcpServers, own } } } }, async (session) => {
      const value = opened(await openToolbox(session, "dev"));
      assert.deepEqual(value._errors, [
        `Failed to connect to server 'own' in toolbox 'dev': Cannot start '${LAUNCHER}': command not found on PATH '/opt/none/bin'`,
      ]);
      assert.deepEqual(toolsOf(value, "fx"), FIXTURE_TOOLS);
      const lines = session.stderr().split("\n").filter((line) => line.includes(LAUNCHER));
      const ours = ourPath(lines[0] ?? "");
      const widened = `${setup.loginPath}:${ours}`;
      assert.deepEqual(lines, [
        `[dev/fx] '${LAUNCHER}' is not on PATH '${ours}': found on the login shell's PATH '${widened}', which it runs with`,
      ]);
      assert.equal(readFileSync(`${setup.dir}/child-path`, "utf8"), widened);
    }, { SHELL: setup.shell });
  } finally {
    rmSync(setup.dir, { recursive: true, force: true });
  }
});

test("command path: check finds the command through the login shell too, and says so on stderr", async () => {
  const setup = loginShellSetup();
  try {
    const path = writeConfig(setup.dir, config);
    const result = await runCli(["check", "--config", path, "--json"], { env: { SHELL: setup.shell }, cwd: setup.dir });
    assert.equal(result.code, 0, result.stderr);
    assert.equal((JSON.parse(result.stdout) as CheckReport).servers[0].ok, true);
    assert.match(result.stderr, new RegExp(`found on the login shell's PATH '${setup.loginPath}:`));
  } finally {
    rmSync(setup.dir, { recursive: true, force: true });
  }
});

test("command path: a login shell that hangs is given up on and killed; a command found nowhere gives the not-found error", async () => {
  const dir = tempDir();
  try {
    writeExecutable(`${dir}/shell`, `echo $$ > '${dir}/shell-pid'\nexec sleep 30`);
    const home = process.env.HOME!;
    const usual = ["/opt/homebrew/bin", "/usr/local/bin", ...[".local", ".volta", ".bun", ".deno"].map((name) => `${home}/${name}/bin`)];
    const missing = { toolboxes: { dev: { description: "d", mcpServers: { gone: { command: "no-such-command-xyz" } } } } };
    await withWorkbench(missing, async (session) => {
      const started = performance.now();
      const text = errorText(await openToolbox(session, "dev"));
      const took = performance.now() - started;
      const prefix = "All servers in toolbox 'dev' failed to connect:\nFailed to connect to server 'gone' in toolbox 'dev': " +
        "Cannot start 'no-such-command-xyz': command not found on PATH '";
      assert.ok(text.startsWith(prefix) && text.endsWith("'"), text);
      assert.ok(isOursThen(text.slice(prefix.length, -1), usual), text);
      assert.ok(took > 2_500 && took < 20_000, `open_toolbox took ${Math.round(took)} ms`);
      assert.ok(existsSync(`${dir}/shell-pid`), "the shell was asked");
      const pid = Number(readFileSync(`${dir}/shell-pid`, "utf8"));
      assert.deepEqual(await waitGone([pid], 5_000), [], "the hung shell was killed");
    }, { SHELL: `${dir}/shell` });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
