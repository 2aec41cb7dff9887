/**
 * The vault of the secrets members provide: sealed with WORKBENCH_SECRETS_KEY in a private file
 * or a shared store, bound to their member and name, kept in memory only (and said once) without
 * a key; names and dates listed, never values.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { platform } from "#platform";
import { MAX_VALUE_BYTES, MemberVault, type VaultOptions, vaultFile } from "../../src/auth/member-vault.ts";
import { STORE_TTL_MS } from "../../src/auth/vault-shelves.ts";
import { MemoryStore } from "../../src/store/memory-store.ts";
import { storeKey } from "../../src/store/store.ts";
import { removeTempDirs, tempDir } from "../helpers/workbench.ts";

after(removeTempDirs);

const VALUE = "ghp_the-clear-value-0123456789";
const newKey = () => btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
const bytesText = (text: string) => btoa(text);

/** A vault in a fresh folder (or over `store`), with its log lines. */
async function vaultIn(dir: string, options: Partial<VaultOptions> & { key?: string } = {}) {
  const lines: string[] = [];
  const env = options.key === undefined ? {} : { WORKBENCH_SECRETS_KEY: options.key };
  const file = `${dir}/member-secrets.json`;
  const vault = await MemberVault.open({ env, files: platform, file, log: (line) => lines.push(line), ...options });
  return { vault, lines, file };
}

test("member vault: the file holds no clear value, only the sealed one; values() reads it back; mode 0600", async () => {
  const dir = tempDir();
  const key = newKey();
  const { vault, lines, file } = await vaultIn(dir, { key });
  assert.equal(vault.where, file);
  await vault.put({ client: "alice", name: "GITHUB_TOKEN", server: "dev/github" }, VALUE);
  await vault.put({ client: "alice", name: "JIRA_TOKEN" }, "jira-value");
  const raw = readFileSync(file, "utf8");
  for (const clear of [VALUE, bytesText(VALUE), "jira-value", bytesText("jira-value")]) assert.ok(!raw.includes(clear), clear);
  const entries = JSON.parse(raw).entries;
  assert.deepEqual(Object.keys(entries[0]).sort(), ["client", "name", "savedAt", "sealed", "server"]);
  if (platform.os !== "windows") assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(await vault.values("alice"), { GITHUB_TOKEN: VALUE, JIRA_TOKEN: "jira-value" });
  assert.deepEqual(await vault.values("bob"), {});
  // Another process with the same key reads it: the file is the vault, not the process.
  const again = await vaultIn(dir, { key });
  assert.deepEqual(await again.vault.values("alice"), { GITHUB_TOKEN: VALUE, JIRA_TOKEN: "jira-value" });
  await again.vault.put({ client: "alice", name: "JIRA_TOKEN" }, "newer");
  assert.equal((await vault.values("alice")).JIRA_TOKEN, "newer", "replaced, read at each use");
  assert.deepEqual(lines, []);
});

test("member vault: another key cannot read it: left out of values(), said once without the value; listed still", async () => {
  const dir = tempDir();
  await (await vaultIn(dir, { key: newKey() })).vault.put({ client: "alice", name: "GITHUB_TOKEN" }, VALUE);
  const other = await vaultIn(dir, { key: newKey() });
  assert.deepEqual(await other.vault.values("alice"), {});
  assert.deepEqual(await other.vault.values("alice"), {});
  assert.equal(other.lines.length, 1, other.lines.join("\n"));
  assert.match(other.lines[0], /^Secret 'GITHUB_TOKEN' that client 'alice' provided cannot be read with this WORKBENCH_SECRETS_KEY/);
  assert.ok(!other.lines[0].includes(VALUE));
  assert.deepEqual((await other.vault.list()).map((entry) => entry.name), ["GITHUB_TOKEN"]);
});

test("member vault: a sealed value copied under another member or another name does not open", async () => {
  const dir = tempDir();
  const key = newKey();
  const { vault, file, lines } = await vaultIn(dir, { key });
  await vault.put({ client: "alice", name: "GITHUB_TOKEN" }, VALUE);
  const data = JSON.parse(readFileSync(file, "utf8"));
  const [alice] = data.entries;
  data.entries.push({ ...alice, client: "bob" }, { ...alice, name: "OTHER" });
  writeFileSync(file, JSON.stringify(data));
  assert.deepEqual(await vault.values("bob"), {});
  assert.deepEqual(await vault.values("alice"), { GITHUB_TOKEN: VALUE });
  assert.equal(lines.length, 2, lines.join("\n"));
});

test("member vault: without WORKBENCH_SECRETS_KEY, memory only: said once at open, nothing written, gone with the vault", async () => {
  const dir = tempDir();
  for (const key of [undefined, ""]) {
    const { vault, lines, file } = await vaultIn(dir, { key });
    assert.equal(vault.where, "memory (WORKBENCH_SECRETS_KEY is not set)");
    assert.equal(lines.length, 1);
    assert.match(lines[0], /^Secrets members provide are kept in memory only and lost at exit: .*set WORKBENCH_SECRETS_KEY/);
    await vault.put({ client: "alice", name: "GITHUB_TOKEN", server: "dev/github" }, VALUE);
    assert.deepEqual(await vault.values("alice"), { GITHUB_TOKEN: VALUE });
    assert.equal((await vault.list("alice")).length, 1);
    assert.equal(lines.length, 1);
    assert.equal(existsSync(file), false);
    const next = await vaultIn(dir, { key });
    assert.deepEqual(await next.vault.values("alice"), {});
  }
});

test("member vault: a key that is not the base64 of 32 bytes is an error naming WORKBENCH_SECRETS_KEY, never its value", async () => {
  const dir = tempDir();
  const short = btoa("0123456789abcdef0123456789abcde");
  for (const bad of ["hunter2-password", short, `${newKey()}AAAA`, "!!!!notbase64!!!!"]) {
    await assert.rejects(vaultIn(dir, { key: bad }), (error: Error) => {
      assert.match(error.message, /^WORKBENCH_SECRETS_KEY is not a key: .*32 random bytes .*openssl rand -base64 32/);
      assert.ok(!error.message.includes(bad), error.message);
      return true;
    });
  }
  // The base64url spelling of a good key is one.
  const url = newKey().replace(/\+/g, "-").replace(/\//g, "_");
  await vaultIn(dir, { key: url });
});

test("member vault: over a shared store, two vaults (replicas) see each other's; no clear value there; a put renews the TTL", async () => {
  let now = 1_000_000;
  const store = new MemoryStore({ shared: true, now: () => now });
  const key = newKey();
  const dir = tempDir();
  const one = await vaultIn(dir, { key, store });
  const two = await vaultIn(dir, { key, store });
  assert.equal(one.vault.where, "memory");
  await one.vault.put({ client: "alice", name: "GITHUB_TOKEN", server: "dev/github" }, VALUE);
  await two.vault.put({ client: "bob", name: "JIRA_TOKEN" }, "bob-jira");
  assert.deepEqual(await two.vault.values("alice"), { GITHUB_TOKEN: VALUE });
  assert.deepEqual(await one.vault.values("bob"), { JIRA_TOKEN: "bob-jira" });
  assert.deepEqual((await one.vault.list()).map(({ client, name }) => `${client}/${name}`), ["alice/GITHUB_TOKEN", "bob/JIRA_TOKEN"]);
  const kept = JSON.stringify(await store.fields(storeKey("secrets", "member", "alice")));
  assert.ok(kept.includes("GITHUB_TOKEN") && !kept.includes(VALUE) && !kept.includes(bytesText(VALUE)), kept);
  assert.equal(existsSync(one.file), false, "a shared store, not the file");
  now += STORE_TTL_MS - 1_000;
  await one.vault.put({ client: "alice", name: "OTHER" }, "x");
  now += 2_000;
  assert.deepEqual(Object.keys(await two.vault.values("alice")).sort(), ["GITHUB_TOKEN", "OTHER"], "renewed by the put");
  assert.deepEqual(await two.vault.values("bob"), {}, "bob's expired");
  // A store of one process's own is not where replicas meet: the file is.
  const own = await vaultIn(dir, { key, store: new MemoryStore() });
  assert.equal(own.vault.where, own.file);
});

test("member vault: list and forget: one secret, one member's, everyone's; what was removed, never values", async () => {
  for (const store of [undefined, new MemoryStore({ shared: true })]) {
    const { vault } = await vaultIn(tempDir(), { key: newKey(), store });
    for (const [client, name] of [["bob", "B"], ["alice", "Z"], ["alice", "A"], ["carol", "A"]]) {
      await vault.put({ client, name }, `v-${client}${name}`);
    }
    const listed = await vault.list();
    assert.deepEqual(listed.map(({ client, name }) => `${client}/${name}`), ["alice/A", "alice/Z", "bob/B", "carol/A"]);
    assert.ok(listed.every((entry) => !JSON.stringify(entry).includes("v-") && !Number.isNaN(Date.parse(entry.savedAt))));
    assert.deepEqual((await vault.list("alice")).map((entry) => entry.name), ["A", "Z"]);
    assert.deepEqual((await vault.forget("alice", "Z")).map((entry) => entry.name), ["Z"]);
    assert.deepEqual(await vault.forget("alice", "Z"), []);
    assert.deepEqual((await vault.forget(undefined, "A")).map((entry) => entry.client), ["alice", "carol"]);
    assert.deepEqual(await vault.values("alice"), {});
    assert.deepEqual((await vault.forget("bob")).map((entry) => entry.name), ["B"]);
    await vault.put({ client: "dave", name: "D" }, "d");
    assert.deepEqual((await vault.forget()).map((entry) => entry.client), ["dave"]);
    assert.deepEqual(await vault.list(), []);
  }
});

test("member vault: names, lengths and empty values checked; opened for names only, values refused", async () => {
  const dir = tempDir();
  const { vault } = await vaultIn(dir, { key: newKey() });
  await assert.rejects(vault.put({ client: "alice", name: "1BAD" }, "x"), /^Error: Secret name '1BAD' is not one/);
  await assert.rejects(vault.put({ client: "alice", name: "A" }, ""), /^Error: Secret 'A' has no value/);
  await assert.rejects(vault.put({ client: "", name: "A" }, "x"), /needs the client/);
  const long = "é".repeat(MAX_VALUE_BYTES / 2 + 1);
  await assert.rejects(vault.put({ client: "alice", name: "A" }, long), /^Error: Secret 'A' is too long: 16386 bytes, at most 16384$/);
  await vault.put({ client: "alice", name: "A" }, "x".repeat(MAX_VALUE_BYTES));
  const names = await vaultIn(dir, { access: "names" });
  assert.equal(names.vault.where, `${dir}/member-secrets.json`);
  assert.deepEqual(names.lines, [], "no memory-only line: it needs no key");
  assert.deepEqual((await names.vault.list()).map((entry) => entry.name), ["A"]);
  await assert.rejects(names.vault.values("alice"), /opened for their names only/);
  await assert.rejects(names.vault.put({ client: "alice", name: "B" }, "x"), /opened for their names only/);
});

test("member vault: a corrupt file is an error naming it; records of another shape are left out, said once", async () => {
  const dir = tempDir();
  const { vault, file, lines } = await vaultIn(dir, { key: newKey() });
  writeFileSync(file, "{ not json");
  await assert.rejects(vault.list(), { message: `Cannot read the secrets file '${file}': it is not JSON` });
  await assert.rejects(vault.put({ client: "a", name: "A" }, "x"), { message: `Cannot read the secrets file '${file}': it is not JSON` });
  writeFileSync(file, JSON.stringify([]));
  await assert.rejects(vault.values("a"), /^Error: Cannot read the secrets file '.*': expected an object with "entries"/);
  writeFileSync(file, JSON.stringify({ entries: [{ client: "a", name: "A" }, 3, { client: "a", name: "B", savedAt: "x", sealed: 5 }] }));
  assert.deepEqual(await vault.list(), []);
  assert.deepEqual(await vault.values("a"), {});
  assert.deepEqual(lines, [`Records in '${file}' that are not secrets as the workbench writes them are left out`]);
});

test("member vault: the default file is member-secrets.json in the folder of the logins", () => {
  assert.equal(vaultFile({ HOME: "/home/me" }, "linux"), "/home/me/.config/mcp-workbench/auth/member-secrets.json");
  assert.equal(vaultFile({ WORKBENCH_AUTH_DIR: "/srv/auth" }, "linux"), "/srv/auth/member-secrets.json");
  assert.equal(vaultFile({ HOME: "/Users/me" }, "darwin"), "/Users/me/Library/Application Support/mcp-workbench/auth/member-secrets.json");
  assert.equal(
    vaultFile({ APPDATA: "C:\\Users\\me\\AppData\\Roaming" }, "windows"),
    "C:\\Users\\me\\AppData\\Roaming\\mcp-workbench\\auth\\member-secrets.json",
  );
});
