/**
 * The workbench's own environment, end to end: `${VAR}` in the configuration is read from it, an
 * unset one fails its server alone naming the variable (`check` exits 1), and a server gets only the
 * minimal set of it (HOME, LOGNAME, PATH, SHELL, TERM, USER, proxies, CAs, locale, temp) plus its
 * own `env`; a server that fails naming a variable it was not given says how to pass it.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { fx, okText, opened, openToolbox, useTool } from "../helpers/toolbox.ts";
import { removeTempDirs, tempDir, textOf, withWorkbench, writeConfig } from "../helpers/workbench.ts";
import { runCli } from "../helpers/cli.ts";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { workbenchEnv } from "../helpers/runtime.ts";

// The folders this file's tests made with tempDir() or spawnLog() go once they are done.
after(removeTempDirs);

const one = (server: Record<string, unknown>) => ({ toolboxes: { dev: { description: "d", mcpServers: { fx: server } } } });

/** A server's environment, as it reports it. */
async function envOf(session: Parameters<typeof useTool>[0], server: string): Promise<Record<string, string>> {
  return JSON.parse(okText(await useTool(session, "dev", server, "env")));
}

test("environment: ${VAR} in the configuration is read from the workbench's environment", async () => {
  const server = fx("${WB_TEST_LABEL}", {}, { FROM_WORKBENCH: "${WB_TEST_TOKEN}", DEFAULTED: "${WB_TEST_UNSET:-fallback}" });
  await withWorkbench(one(server), async (session) => {
    opened(await openToolbox(session, "dev"));
    const env = await envOf(session, "fx");
    assert.deepEqual([env.FIXTURE_LABEL, env.FROM_WORKBENCH, env.DEFAULTED], ["from-env", "token-42", "fallback"]);
    assert.equal(okText(await useTool(session, "dev", "fx", "echo", { text: "hi" })), "from-env: hi");
  }, { WB_TEST_LABEL: "from-env", WB_TEST_TOKEN: "token-42" });
});

const MISSING = "Environment variable WB_TEST_MISSING is not set (used at toolboxes.dev.mcpServers.bad.env.API_KEY)";
const BAD_AND_GOOD = {
  toolboxes: {
    dev: { description: "d", mcpServers: { bad: fx("B", {}, { SET_ONE: "${WB_TEST_SECRET}", API_KEY: "${WB_TEST_MISSING}" }), good: fx("G") } },
  },
};

test("environment: an unset ${VAR} fails its server alone, naming the variable and no value; the others serve", async () => {
  await withWorkbench(BAD_AND_GOOD, async (session) => {
    const value = opened(await openToolbox(session, "dev"));
    assert.equal(value.servers_connected, 1);
    assert.deepEqual(value._errors, [`Failed to connect to server 'bad' in toolbox 'dev': ${MISSING}`]);
    assert.equal(okText(await useTool(session, "dev", "good", "echo", { text: "hi" })), "G: hi");
    const refused = textOf(await useTool(session, "dev", "bad", "echo", { text: "hi" }));
    assert.match(refused, /WB_TEST_MISSING is not set/);
    assert.ok(!session.stderr().includes("s3cret-value"));
  }, { WB_TEST_SECRET: "s3cret-value" });
});

test("environment: check reports an unset ${VAR} as its server's failure and exits 1", async () => {
  const dir = tempDir();
  const done = await runCli(["check", "--config", writeConfig(dir, BAD_AND_GOOD)], { cwd: dir, env: { WB_TEST_SECRET: "s3cret-value" } });
  assert.equal(done.code, 1, done.stderr);
  assert.match(done.stdout, /dev +bad +stdio +FAILED/);
  assert.ok(done.stdout.includes(`  error: ${MISSING}\n`), done.stdout);
  assert.match(done.stdout, /dev +good +stdio +ok/);
});

test("environment: a server sees HOME, LOGNAME, PATH, SHELL, TERM, USER, proxy, CA, locale and temp variables of ours plus its own env; inheritEnv passes all but our tokens", async () => {
  const network = {
    HTTPS_PROXY: "http://127.0.0.1:9",
    no_proxy: "localhost,127.0.0.1",
    NODE_EXTRA_CA_CERTS: "/etc/wb-test-ca.pem",
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    TMPDIR: tmpdir(),
  };
  const ours = {
    LOGNAME: "wb-logname",
    SHELL: "/bin/wb-shell",
    TERM: "wb-term",
    USER: "wb-user",
    WORKBENCH_TEST_SECRET: "hunter2",
    BOB_TOKEN: "bob-token-0123456789",
    REMOTE_KEY: "remote-key-0123456789",
    ...network,
  };
  const config = {
    toolboxes: {
      dev: {
        description: "d",
        mcpServers: { plain: fx("P", {}, { GIVEN: "yes" }), inherit: fx("I", { inheritEnv: true }) },
      },
      // Never started: only what the configuration reads as secrets matters.
      far: { description: "f", mcpServers: { api: { url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer ${REMOTE_KEY}" } } } },
    },
    serve: { clients: { bob: { token: "${BOB_TOKEN}", toolboxes: ["*"] } } },
  };
  await withWorkbench(config, async (session) => {
    opened(await openToolbox(session, "dev"));
    const { PATH, HOME } = workbenchEnv();
    const { PATH: seenPath, ...plain } = await envOf(session, "plain");
    // A fixture run by Deno sees its runtime's own directory put before the PATH it was given.
    assert.ok(seenPath === PATH || seenPath.endsWith(`:${PATH}`), `PATH ${seenPath}`);
    assert.deepEqual(plain, {
      HOME,
      LOGNAME: "wb-logname",
      SHELL: "/bin/wb-shell",
      TERM: "wb-term",
      USER: "wb-user",
      ...network,
      FIXTURE_LABEL: "P",
      GIVEN: "yes",
    });
    const inherited = await envOf(session, "inherit");
    assert.equal(inherited.WORKBENCH_TEST_SECRET, "hunter2");
    assert.equal(inherited.USER, "wb-user");
    // The workbench's own tokens: a serve client's, and a remote server's header.
    assert.deepEqual([inherited.BOB_TOKEN, inherited.REMOTE_KEY], [undefined, undefined]);
  }, ours);
});

test("environment: a server that fails naming a variable the workbench has but did not pass says which and how to pass it", async () => {
  const server = { command: "sh", args: ["-c", 'echo "Error: WB_TEST_API_KEY is not set" >&2; exit 1'] };
  const path = writeConfig(tempDir(), one(server));
  const done = await runCli(["check", "--config", path], { env: { WB_TEST_API_KEY: "k-0123456789" } });
  assert.equal(done.code, 1);
  assert.ok(
    done.stdout.includes(
      `its stderr ended with: Error: WB_TEST_API_KEY is not set; it names 'WB_TEST_API_KEY', which the workbench has but does not pass to servers: ` +
        `add "env": {"WB_TEST_API_KEY": "\${WB_TEST_API_KEY}"} to the server, or "inheritEnv": true`,
    ),
    done.stdout,
  );
  // Not set in the workbench either: nothing to pass, so no such hint.
  const unset = await runCli(["check", "--config", path]);
  assert.doesNotMatch(unset.stdout, /does not pass to servers/);
});

test("environment: a server that prints its own env values has them masked in _errors, use_tool errors, check and stderr", async () => {
  const token = "ghp_0123456789abcdefSECRET";
  const server = {
    command: "sh",
    args: ["-c", 'echo "boom token=$GITHUB_TOKEN mode=$MODE" >&2; exit 1'],
    // ${VAR} values are masked as they are used, after expansion; short values are settings, not secrets.
    env: { GITHUB_TOKEN: "${WB_TEST_SECRET}", MODE: "debug" },
  };
  const said = "server exited with code 1 during initialization; its stderr ended with: boom token=*** mode=debug";
  // A second server that works keeps the toolbox open, so that use_tool reaches the failed one.
  const config = { toolboxes: { dev: { description: "d", mcpServers: { fx: server, ok: fx("ok") } } } };
  await withWorkbench(config, async (session) => {
    const value = opened(await openToolbox(session, "dev"));
    assert.deepEqual(value._errors, [`Failed to connect to server 'fx' in toolbox 'dev': ${said}`]);
    const failed = await useTool(session, "dev", "fx", "echo", { text: "x" });
    assert.equal(textOf(failed), `Error executing tool 'echo' in server 'fx' (toolbox 'dev'): failed to start: ${said}`);
    assert.ok(session.stderr().includes("[dev/fx] boom token=*** mode=debug"), session.stderr());
    assert.ok(!session.stderr().includes(token), "the relayed stderr lines are masked");
  }, { WB_TEST_SECRET: token });
  const dir = tempDir();
  try {
    const checked = await runCli(["check", "--config", writeConfig(dir, one(server))], { env: { WB_TEST_SECRET: token }, cwd: dir });
    assert.equal(checked.code, 1);
    assert.ok(checked.stdout.includes(`  error: ${said}\n`), checked.stdout);
    assert.ok(!`${checked.stdout}${checked.stderr}`.includes(token));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
