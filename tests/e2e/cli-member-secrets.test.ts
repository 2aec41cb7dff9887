/**
 * `${client:NAME}` for the local user (issue 49): in the commands (`call`, `tools`, `check`) the
 * one user's secret NAME is the environment variable NAME, in a stdio server's env and a remote
 * server's header alike; without it a command says which variable to set, and the server is never
 * started or sent to.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { removeTempDirs, tempDir, writeConfig } from "../helpers/workbench.ts";
import { runCli } from "../helpers/cli.ts";
import { fx } from "../helpers/toolbox.ts";
import { type HttpFixture, startHttpFixture } from "../helpers/http-fixture.ts";

const SECRET = "local-secret-value-444";
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const dir = tempDir();
const spawns = `${dir}/spawns.log`;
let remote: HttpFixture;
let configPath = "";
/** The remote server alone, with no secret: counting its requests starts nothing else (a call starts its whole toolbox). */
let countPath = "";

before(async () => {
  remote = await startHttpFixture();
  configPath = writeConfig(dir, {
    toolboxes: {
      dev: {
        description: "Mine",
        mcpServers: {
          own: fx("own", {}, { FIXTURE_SPAWN_LOG: spawns, MEMBER_VALUE: "${client:API_TOKEN}", FIXTURE_DIGESTS: "MEMBER_VALUE" }),
          remote: { type: "http", url: remote.url("/mcp"), headers: { "X-Member-Token": "${client:API_TOKEN}" } },
        },
      },
    },
  });
  countPath = writeConfig(tempDir(), { toolboxes: { count: { mcpServers: { remote: { type: "http", url: remote.url("/mcp") } } } } });
});

after(async () => {
  await remote?.stop();
  removeTempDirs();
});

const cli = (args: string[], env: Record<string, string> = {}) => runCli([...args, "--config", configPath], { cwd: dir, env });
const started = () => existsSync(spawns) ? readFileSync(spawns, "utf8").trim().split("\n").filter(Boolean).length : 0;

test("commands: the local user's ${client:API_TOKEN} is the environment variable API_TOKEN, masked in what is printed", async () => {
  const result = await cli(["call", "dev", "own", "env"], { API_TOKEN: SECRET });
  assert.equal(result.code, 0, result.stderr);
  const env = JSON.parse(result.stdout) as { MEMBER_VALUE: string; FIXTURE_DIGESTS_OF: Record<string, string> };
  assert.equal(env.FIXTURE_DIGESTS_OF.MEMBER_VALUE, sha256(SECRET));
  assert.equal(env.MEMBER_VALUE, "***");
  const headers = await cli(["call", "dev", "remote", "headers", '{"name": "x-member-token"}'], { API_TOKEN: SECRET });
  assert.equal(headers.code, 0, headers.stderr);
  assert.deepEqual([...new Set(JSON.parse(headers.stdout) as string[])], [sha256(SECRET)]);
});

test("commands: without the variable, call, tools and check name it; nothing is started or sent", async () => {
  const before = started();
  const count = ["call", "count", "remote", "requests", "--config", countPath];
  const requests = async () => Number((await runCli(count, { cwd: dir })).stdout);
  const first = await requests();
  const second = await requests();
  const message = /Secret 'API_TOKEN' is not set: set the environment variable API_TOKEN/;
  for (const args of [["call", "dev", "own", "env"], ["call", "dev", "remote", "echo", '{"text": "x"}'], ["tools", "dev"], ["check"]]) {
    const result = await cli(args);
    assert.notEqual(result.code, 0, `${args.join(" ")}: ${result.stdout}`);
    assert.match(result.stdout + result.stderr, message, args.join(" "));
  }
  assert.equal(started(), before, "own was never started without the variable");
  // As many requests since the last count as one counting command makes: none came from the commands without it.
  assert.equal(await requests() - second, second - first, "nothing reached the remote server without the variable");
});
