/**
 * The OAuth login of a remote server end to end, over loopback: our authorization server fixture,
 * the `auth` subcommand (its browser replaced by following the printed URL with fetch), the token
 * store, a server that checks the bearer token, and a refresh when the access token expires.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { fx, okText, opened, openToolbox, sleep, useTool } from "../helpers/toolbox.ts";
import { removeTempDirs, tempDir, withWorkbench } from "../helpers/workbench.ts";
import { startHttpFixture } from "../helpers/http-fixture.ts";
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
  const authDir = `${tempDir()}/auth`;
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
  assert.match(missing.output, /^mcp-workbench: Server 'nope' not found in toolbox 'dev'$/m);
});
