/**
 * The OAuth login of a remote server end to end, over loopback: our authorization server fixture,
 * the `auth` subcommand (its browser replaced by following the printed URL with fetch), the token
 * store, a server that checks the bearer token, and a refresh when the access token expires.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { errorText, fx, okText, opened, openToolbox, sleep, useTool } from "../helpers/toolbox.ts";
import { removeTempDirs, tempDir, withWorkbench, writeConfig } from "../helpers/workbench.ts";
import { type HttpFixture, startHttpFixture } from "../helpers/http-fixture.ts";
import { runCli } from "../helpers/cli.ts";
import { workbenchCommand, workbenchEnv } from "../helpers/runtime.ts";

// The folders this file's tests made with tempDir() or spawnLog() go once they are done.
after(removeTempDirs);

const TOKEN_TTL_MS = 2_000;

/** Runs `mcp-workbench auth ...`, follows the URL it prints as a browser would, and waits for it to end. */
async function login(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const { command, args: full } = workbenchCommand(["auth", ...args, "--no-browser"]);
  const child = spawn(command, full, { env: workbenchEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  let followed = false;
  const done = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const onData = (text: string) => {
    output += text;
    const url = /^(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(output)?.[1];
    if (url && !followed) {
      followed = true;
      void fetch(url).then((response) => response.text()).catch((error) => (output += `\nfetch failed: ${error}`));
    }
  };
  child.stdout.setEncoding("utf8").on("data", onData);
  child.stderr.setEncoding("utf8").on("data", onData);
  const code = await done;
  clearTimeout(timer);
  return { code, output };
}

test("oauth: login required is listed with the exact command; auth logs in; tokens are stored privately and refreshed", async () => {
  const fixture = await startHttpFixture({ FIXTURE_OAUTH: "1", FIXTURE_TOKEN_TTL_MS: String(TOKEN_TTL_MS) });
  const home = tempDir();
  const authDir = `${home}/auth`;
  const env = { WORKBENCH_AUTH_DIR: authDir };
  try {
    const config = { toolboxes: { dev: { description: "d", mcpServers: { local: fx("L"), linear: { url: fixture.url("/mcp") } } } } };
    await withWorkbench(config, async (session) => {
      const configPath = `${session.dir}/workbench-config.json`;
      const first = opened(await openToolbox(session, "dev"));
      assert.equal(first.servers_connected, 1);
      assert.deepEqual(first._errors, [
        `Failed to connect to server 'linear' in toolbox 'dev': login required: run "mcp-workbench auth dev linear --config ${configPath}"`,
      ]);

      const { code, output } = await login(["dev", "linear", "--config", configPath], env);
      assert.equal(code, 0, output);
      assert.match(output, /^Open this URL to log in to server 'linear' \(toolbox 'dev'\):$/m);
      assert.match(output, /^Logged in to server 'linear' in toolbox 'dev'; saved in .+\.json$/m);

      const [file] = readdirSync(authDir);
      const path = `${authDir}/${file}`;
      assert.equal(statSync(path).mode & 0o777, 0o600);
      assert.equal(statSync(authDir).mode & 0o777, 0o700);
      const stored = JSON.parse(readFileSync(path, "utf8"));
      assert.ok(stored.tokens.access_token && stored.tokens.refresh_token && stored.client.client_id);

      const second = opened(await openToolbox(session, "dev"));
      assert.equal(second.servers_connected, 2, JSON.stringify(second._errors));
      assert.equal(okText(await useTool(session, "dev", "linear", "echo", { text: "in" })), "remote: in");

      // The access token expires; the next request gets 401 and the stored refresh token is used.
      await sleep(TOKEN_TTL_MS + 500);
      assert.equal(okText(await useTool(session, "dev", "linear", "echo", { text: "still in" })), "remote: still in");
      const stats = await (await fetch(fixture.url("/oauth-stats"))).json() as { refreshes: number; registrations: number };
      assert.ok(stats.refreshes >= 1, JSON.stringify(stats));
      assert.equal(stats.registrations, 1);
      const refreshed = JSON.parse(readFileSync(path, "utf8"));
      assert.notEqual(refreshed.tokens.access_token, stored.tokens.access_token, "the new tokens were saved");

      const everything = [output, session.stderr(), JSON.stringify(first), JSON.stringify(second)].join("\n");
      for (const secret of [stored.tokens.access_token, stored.tokens.refresh_token, stored.client.client_secret, refreshed.tokens.access_token]) {
        assert.ok(!everything.includes(secret), `a secret leaked:\n${everything}`);
      }
    }, env);
  } finally {
    await fixture.stop();
    rmSync(home, { recursive: true, force: true });
  }
});

test("oauth: auth refuses a stdio server and an unknown server, naming them", async () => {
  const dir = tempDir();
  const { writeConfig } = await import("../helpers/workbench.ts");
  const configPath = writeConfig(dir, { toolboxes: { dev: { mcpServers: { local: fx("L") } } } });
  const local = await login(["dev", "local", "--config", configPath], { WORKBENCH_AUTH_DIR: `${dir}/auth` });
  assert.equal(local.code, 2);
  assert.match(local.output, /^mcp-workbench: Server 'local' in toolbox 'dev' is started as a command: only servers with a url log in$/m);
  const missing = await login(["dev", "nope", "--config", configPath], { WORKBENCH_AUTH_DIR: `${dir}/auth` });
  assert.equal(missing.code, 2);
  assert.match(missing.output, /^mcp-workbench: Server 'nope' not found in toolbox 'dev' of '.*\/workbench-config\.json'$/m);
  rmSync(dir, { recursive: true, force: true });
});

/** A folder with a config of one remote server at the fixture, and a private token store; removed after `fn`. */
async function withLoginSetup(
  fn: (setup: { fixture: HttpFixture; configPath: string; env: Record<string, string>; config: unknown }) => Promise<void>,
  fixtureEnv: Record<string, string> = {},
): Promise<void> {
  const fixture = await startHttpFixture({ FIXTURE_OAUTH: "1", ...fixtureEnv });
  const dir = tempDir();
  try {
    const config = { toolboxes: { dev: { mcpServers: { linear: { url: fixture.url("/mcp") } } } } };
    const configPath = writeConfig(dir, config);
    await fn({ fixture, configPath, env: { WORKBENCH_AUTH_DIR: `${dir}/auth` }, config });
  } finally {
    await fixture.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const statsOf = async (fixture: HttpFixture) =>
  await (await fetch(fixture.url("/oauth-stats"))).json() as {
    registrations: number;
    refreshes: number;
    authorizations: number;
    clientCredentials: number;
    scopes: string[];
    clientCredentialScopes: string[];
  };

test("oauth: tools, call and check use the stored login right after auth and refresh it; auth asks for the challenge's scope and registers once", async () => {
  await withLoginSetup(async ({ fixture, configPath, env }) => {
    const first = await login(["dev", "linear", "--config", configPath], env);
    assert.equal(first.code, 0, first.output);
    await sleep(TOKEN_TTL_MS + 500);
    const tools = await runCli(["tools", "dev", "--config", configPath], { env });
    assert.equal(tools.code, 0, tools.stderr);
    assert.match(tools.stdout, /^linear\/echo\s+remote: echo the text back$/m);
    const called = await runCli(["call", "dev", "linear", "echo", '{"text": "hi"}', "--config", configPath], { env });
    assert.equal(called.code, 0, called.stderr);
    assert.equal(called.stdout, "remote: hi\n");
    const checked = await runCli(["check", "--config", configPath, "--json"], { env });
    assert.equal(checked.code, 0, checked.stdout + checked.stderr);

    const second = await login(["dev", "linear", "--config", configPath], env);
    assert.equal(second.code, 0, second.output);
    const stats = await statsOf(fixture);
    assert.ok(stats.refreshes >= 1, "the expired token was refreshed, not logged in again");
    assert.equal(stats.authorizations, 2);
    assert.equal(stats.registrations, 1, "the second login reuses the client and its redirect URL");
    assert.deepEqual(stats.scopes, ["read", "read"], "the scope of the 401 challenge is asked for");
  }, { FIXTURE_TOKEN_TTL_MS: String(TOKEN_TTL_MS) });
});

test("oauth: a missing scope names the login that asks for old and new scopes; a login in a terminal is used by the running workbench on its next call", async () => {
  await withLoginSetup(async ({ fixture, env, config }) => {
    await withWorkbench(config, async (session) => {
      const servingConfig = `${session.dir}/workbench-config.json`;
      assert.equal((await login(["dev", "linear", "--config", servingConfig], env)).code, 0);
      assert.equal(opened(await openToolbox(session, "dev")).servers_connected, 1);
      assert.equal(okText(await useTool(session, "dev", "linear", "echo", { text: "in" })), "remote: in");

      // The 403 names only the scope missing ("write"): the login it prints keeps "read", held already.
      const refused = errorText(await useTool(session, "dev", "linear", "guarded"));
      const command = `mcp-workbench auth dev linear --scope 'read write' --config ${servingConfig}`;
      assert.ok(
        refused.endsWith(`the server needs the scope "write", which the stored login lacks: run "${command}"`),
        refused,
      );
      // That login, run as printed, asks the authorization server for both.
      const printed = /--scope '([^']*)'/.exec(refused)?.[1];
      assert.ok(printed !== undefined, refused);
      const stepUp = await login(["dev", "linear", "--scope", printed, "--config", servingConfig], env);
      assert.equal(stepUp.code, 0, stepUp.output);
      assert.equal((await statsOf(fixture)).scopes.at(-1), "read write");
      assert.equal(okText(await useTool(session, "dev", "linear", "guarded")), "remote: written", "no restart needed");

      // Every token revoked: the refresh fails too, the workbench says to log in; once done, the next call works.
      await (await fetch(fixture.url("/oauth-revoke"), { method: "POST" })).body?.cancel();
      const lost = errorText(await useTool(session, "dev", "linear", "echo", { text: "x" }));
      assert.match(lost, /login required: run "mcp-workbench auth dev linear --config [^"]+"$/);
      assert.equal((await login(["dev", "linear", "--config", servingConfig], env)).code, 0);
      assert.equal(okText(await useTool(session, "dev", "linear", "echo", { text: "back" })), "remote: back");
    }, env);
  });
});

test("oauth: client credentials need no login: auth checks them, tools and serving get tokens themselves and a new one when it expires", async () => {
  const fixture = await startHttpFixture({ FIXTURE_OAUTH: "1", FIXTURE_TOKEN_TTL_MS: String(TOKEN_TTL_MS) });
  const dir = tempDir();
  const secret = "ci-bot-secret";
  const env = { WORKBENCH_AUTH_DIR: `${dir}/auth`, BOT_SECRET: secret };
  try {
    const oauth = { grant: "client_credentials", clientId: "ci-bot", clientSecret: "${BOT_SECRET}", scopes: ["read", "write"] };
    const config = { toolboxes: { dev: { mcpServers: { bot: { url: fixture.url("/mcp"), oauth } } } } };
    const configPath = writeConfig(dir, config);
    const checked = await login(["dev", "bot", "--config", configPath], env);
    assert.equal(checked.code, 0, checked.output);
    assert.match(checked.output, /^Server 'bot' in toolbox 'dev' uses client credentials: a token was issued; the workbench gets its own tokens, no login is kept$/m);
    const tools = await runCli(["tools", "dev", "--config", configPath], { env });
    assert.equal(tools.code, 0, tools.stderr);
    assert.match(tools.stdout, /^bot\/echo /m);
    const before = (await statsOf(fixture)).clientCredentials;
    await withWorkbench(config, async (session) => {
      assert.equal(opened(await openToolbox(session, "dev")).servers_connected, 1);
      assert.equal(okText(await useTool(session, "dev", "bot", "echo", { text: "one" })), "remote: one");
      await sleep(TOKEN_TTL_MS + 500);
      assert.equal(okText(await useTool(session, "dev", "bot", "echo", { text: "two" })), "remote: two");
      assert.equal(okText(await useTool(session, "dev", "bot", "guarded")), "remote: written", "the token has the scopes asked for");
      assert.ok(!session.stderr().includes(secret));
    }, env);
    const stats = await statsOf(fixture);
    assert.equal(stats.clientCredentials - before, 2, "one token, then a new one when it expired");
    assert.deepEqual(stats.clientCredentialScopes, ["read write", "read write", "read write", "read write"], "auth, tools, then serving: each grant asks for the configured scopes");
    assert.equal(stats.authorizations, 0, "no login");
    assert.deepEqual(readdirSync(dir).filter((name) => name === "auth"), [], "nothing stored");
    assert.ok(![checked.output, tools.stdout, tools.stderr].join("\n").includes(secret));
  } finally {
    await fixture.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
