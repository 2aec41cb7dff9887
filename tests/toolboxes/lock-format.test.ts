/**
 * The lock file's shape (toolboxes/lock-format.ts): a definition's digest is made from what the
 * file wrote, before ${VAR}, so it is the same wherever the file is read and holds no secret; a
 * `definitions` section that is not one is refused like any other; a place's definition is
 * recorded once, never rewritten on a call that sees another.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { platform } from "#platform";
import { definitionDigest, parseLock } from "../../src/toolboxes/lock-format.ts";
import { LOCK_FILE, PinStore } from "../../src/toolboxes/pin-store.ts";
import { sha256Hex } from "../../src/cache/sha256.ts";
import { sharingKey } from "../../src/config/definition.ts";
import { loadJson } from "../config/helpers.ts";

const file = { toolboxes: { dev: { mcpServers: { api: { command: "api-server", args: ["--token", "${TOKEN}"], env: { KEY: "${KEY}" } } } } } };

test("lock format: a definition's digest is the file's text before ${VAR}: the same for any value, and no value in it", async () => {
  const one = (await loadJson(file, { TOKEN: "hunter2", KEY: "k1" })).config.toolboxes.dev.mcpServers.api;
  const other = (await loadJson(file, { TOKEN: "s3cret", KEY: "k2" })).config.toolboxes.dev.mcpServers.api;
  assert.equal(definitionDigest(one), definitionDigest(other));
  assert.match(one.written ?? "", /\$\{TOKEN\}/);
  assert.doesNotMatch(one.written ?? "", /hunter2|k1/);
  assert.notEqual(definitionDigest(one), `sha256:${sha256Hex(sharingKey(one))}`, "not the expanded definition's");
  assert.ok(!Object.keys(one).includes("written"), "not part of the configuration as data");
  const moved = (await loadJson({ toolboxes: { dev: { mcpServers: { api: { ...file.toolboxes.dev.mcpServers.api, command: "other" } } } } })).config;
  assert.notEqual(definitionDigest(moved.toolboxes.dev.mcpServers.api), definitionDigest(one), "another definition, another digest");
});

test("lock format: a definitions section that is not strings by toolbox and server is refused", () => {
  const lock = (definitions: unknown) => JSON.stringify({ toolboxes: {}, definitions, version: 1 });
  assert.deepEqual(parseLock(lock({ dev: { api: "sha256:1" } })), { toolboxes: {}, texts: {}, definitions: { dev: { api: "sha256:1" } } });
  assert.equal(typeof parseLock(lock({ dev: { api: 7 } })), "string");
  assert.equal(typeof parseLock(lock(["x"])), "string");
});

test("lock format: a place's definition is recorded at its first sight and not rewritten when a call sees another (no write per call)", async () => {
  const dir = mkdtempSync(`${tmpdir()}/workbench-lock-format-`);
  try {
    const store = new PinStore(`${dir}/${LOCK_FILE}`, platform);
    await store.refresh();
    await store.pinServer("dev", "api", [], undefined, [], "sha256:first");
    const written = readFileSync(`${dir}/${LOCK_FILE}`, "utf8");
    assert.match(written, /"api": "sha256:first"/);
    await store.pinServer("dev", "api", [], undefined, [], "sha256:second");
    assert.equal(readFileSync(`${dir}/${LOCK_FILE}`, "utf8"), written, "the file is not written again");
    await store.approve("dev", "api", {}, [], undefined, "sha256:second");
    assert.equal(store.snapshot.definitionOf("dev", "api"), "sha256:second", "approve records the definition it approved");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
