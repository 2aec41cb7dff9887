/**
 * `mcp-workbench secrets list|forget`: the names and dates of what clients provided, never values,
 * from the file or from the configuration's serve.store; forget removes and says what; usage errors.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { platform } from "#platform";
import { run } from "../../src/cli/run.ts";
import { MemberVault, vaultFile } from "../../src/auth/member-vault.ts";
import { openRedisStore } from "../../src/store/redis-store.ts";
import { capturedPlatform } from "../helpers/captured-platform.ts";
import { type RedisServer, redisMissing, startRedis } from "../helpers/redis.ts";
import { removeTempDirs, tempDir, writeConfig } from "../helpers/workbench.ts";

const skipRedis = redisMissing();
if (skipRedis) console.log(`SKIPPED: secrets over redis-server: ${skipRedis}`);
let redis: RedisServer | undefined;
after(async () => {
  removeTempDirs();
  await redis?.stop();
});

const KEY = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
const TOOLBOXES = { dev: { mcpServers: { a: { command: "true" } } } };

/** A folder with a configuration and the logins' folder the vault's file goes in. */
function setUp(serve?: unknown) {
  const dir = tempDir();
  const config = writeConfig(dir, { toolboxes: TOOLBOXES, ...(serve !== undefined && { serve }) });
  const env = { WORKBENCH_AUTH_DIR: `${dir}/auth` };
  return { dir, config, env, file: vaultFile(env, platform.os) };
}

/** `mcp-workbench secrets ARGS --config CONFIG` through run(), as the command line does; no key in its environment. */
async function secrets(args: string[], setup: { config: string; env: Record<string, string> }) {
  const { fake, out } = capturedPlatform({ env: setup.env });
  Object.defineProperties(fake, { args: { value: ["secrets", ...args, "--config", setup.config] }, startupDone: { value: () => {} } });
  const code = await run(fake);
  return { code, ...out };
}

async function seeded(setup: { env: Record<string, string>; file: string }, store?: Parameters<typeof MemberVault.open>[0]["store"]) {
  const vault = await MemberVault.open({
    env: { WORKBENCH_SECRETS_KEY: KEY },
    files: platform,
    file: setup.file,
    store,
    log: (line) => assert.fail(line),
  });
  await vault.put({ client: "alice", name: "GITHUB_TOKEN", server: "dev/github" }, "alice-github-value");
  await vault.put({ client: "alice", name: "JIRA_TOKEN" }, "alice-jira-value");
  await vault.put({ client: "bob", name: "GITHUB_TOKEN", server: "dev/github" }, "bob-github-value");
  return vault;
}

test("secrets list: one line per secret, client, name, date and the server that asked; never a value; needs no key", async () => {
  const setup = setUp();
  const empty = await secrets(["list"], setup);
  assert.equal(empty.code, 0, empty.stderr);
  assert.match(empty.stdout, new RegExp(`^No secrets provided in '${setup.file}' \\(a workbench serving without WORKBENCH_SECRETS_KEY`));
  await seeded(setup);
  const all = await secrets(["list"], setup);
  assert.equal(all.code, 0, all.stderr);
  assert.equal(all.stderr, "");
  const lines = all.stdout.trimEnd().split("\n");
  assert.equal(lines.length, 3, all.stdout);
  assert.match(lines[0], /^alice {2}GITHUB_TOKEN {2}saved \d{4}-\d\d-\d\d \d\d:\d\d UTC {2}asked by dev\/github$/);
  assert.match(lines[1], /^alice {2}JIRA_TOKEN {4}saved \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
  assert.match(lines[2], /^bob {4}GITHUB_TOKEN/);
  assert.ok(!all.stdout.includes("-value"), all.stdout);
  const bob = await secrets(["list", "--client", "bob"], setup);
  assert.deepEqual(bob.stdout.trimEnd().split("\n").map((line) => line.split(/ +/)[0]), ["bob"]);
  const carol = await secrets(["list", "--client", "carol"], setup);
  assert.match(carol.stdout, /^No secrets provided by client 'carol' in '/);
});

test("secrets forget: the named secrets of one client, all of theirs, or everyone's; says what it removed", async () => {
  const setup = setUp();
  const vault = await seeded(setup);
  const one = await secrets(["forget", "--client", "alice", "GITHUB_TOKEN", "NOPE"], setup);
  assert.equal(one.code, 0, one.stderr);
  assert.equal(one.stdout, "Forgot secret 'GITHUB_TOKEN' of client 'alice'\nNo secret 'NOPE' of client 'alice' to forget\n");
  assert.deepEqual(await vault.values("alice"), { JIRA_TOKEN: "alice-jira-value" });
  assert.deepEqual(await vault.values("bob"), { GITHUB_TOKEN: "bob-github-value" });
  const theirs = await secrets(["forget", "--client", "alice"], setup);
  assert.equal(theirs.stdout, "Forgot secret 'JIRA_TOKEN' of client 'alice'\n");
  const none = await secrets(["forget", "--client", "alice"], setup);
  assert.match(none.stdout, /^No secrets of client 'alice' to forget in '/);
  await vault.put({ client: "carol", name: "X" }, "carol-x-value");
  const everyone = await secrets(["forget", "--all"], setup);
  assert.equal(everyone.stdout, "Forgot secret 'GITHUB_TOKEN' of client 'bob'\nForgot secret 'X' of client 'carol'\n");
  assert.deepEqual(await vault.list(), []);
});

test("secrets: usage errors (exit 2, nothing removed): forget without --client or --all, or with both; list with a SECRET", async () => {
  const setup = setUp();
  await seeded(setup);
  const before = readFileSync(setup.file, "utf8");
  const cases: [string[], RegExp][] = [
    [["forget"], /^mcp-workbench: Forget whose secrets\? Give --client NAME \(one client's\) or --all \(every client's\) \(see --help\)\n/],
    [["forget", "GITHUB_TOKEN"], /Give --client NAME/],
    [["forget", "--client", "alice", "--all"], /^mcp-workbench: Give --client NAME or --all, not both/],
    [["list", "GITHUB_TOKEN"], /^mcp-workbench: Unexpected argument 'GITHUB_TOKEN': secrets list takes no SECRET/],
    [["forget", "--all", "not-a-name"], /^mcp-workbench: Secret name 'not-a-name' is not one/],
    [["frob"], /^mcp-workbench: Unknown action 'frob': secrets list\|forget/],
    [[], /^mcp-workbench: Missing argument action: secrets list\|forget/],
    [["list", "--json"], /^mcp-workbench: Unknown option '--json'/],
  ];
  for (const [args, expected] of cases) {
    const result = await secrets(args, setup);
    assert.equal(result.code, 2, args.join(" "));
    assert.match(result.stderr, expected);
    assert.equal(result.stdout, "");
  }
  assert.equal(readFileSync(setup.file, "utf8"), before);
  const help = await secrets(["--help"], setup);
  assert.match(help.stdout, /^Usage: mcp-workbench secrets list\|forget \[--client NAME \| --all\] \[SECRET\.\.\.\]\n/);
});

test("secrets: a corrupt file is a failure naming it (exit 1); so is a store named and unreachable (never the file instead)", async () => {
  const setup = setUp();
  await seeded(setup);
  writeFileSync(setup.file, "{");
  const corrupt = await secrets(["list"], setup);
  assert.equal(corrupt.code, 1);
  assert.equal(corrupt.stderr, `mcp-workbench: Cannot read the secrets file '${setup.file}': it is not JSON\n`);
  const away = setUp({ store: "redis://127.0.0.1:1" });
  const unreachable = await secrets(["list"], away);
  assert.equal(unreachable.code, 1);
  const refusal = /^mcp-workbench: Cannot open the store of serve\.store in '.*': The store 'redis:\/\/127\.0\.0\.1:1' is unreachable/;
  assert.match(unreachable.stderr, refusal);
});

test("secrets: with serve.store, lists and forgets what replicas keep in that store, not in the file", { skip: skipRedis }, async () => {
  redis ??= await startRedis();
  const setup = setUp({ store: redis.url });
  const store = await openRedisStore(redis.url, platform.connectRedis, { log: () => {} });
  try {
    const vault = await seeded(setup, store);
    const listed = await secrets(["list"], setup);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(listed.stdout.trimEnd().split("\n").length, 3, listed.stdout);
    assert.ok(!listed.stdout.includes("-value"));
    const forgot = await secrets(["forget", "--client", "bob"], setup);
    assert.equal(forgot.stdout, "Forgot secret 'GITHUB_TOKEN' of client 'bob'\n");
    assert.deepEqual(await vault.values("bob"), {});
    assert.deepEqual((await vault.list()).map((entry) => entry.client), ["alice", "alice"]);
    assert.throws(() => readFileSync(setup.file), /ENOENT|No such file/);
  } finally {
    await store.close();
  }
});
