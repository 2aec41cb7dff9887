/**
 * The Windows release as Scoop and a user downloading it see it: the zip, SHA256SUMS and the Scoop
 * manifest agree with each other, and the executable in the zip is the one tested, which starts
 * under Wine.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { readZip } from "../../scripts/release/zip.ts";
import { cleanUp, described, place, runWine, suite, wineEnv, winPath } from "./wine.ts";

const version = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version;
const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

test("wine: the release's zip, SHA256SUMS and Scoop manifest agree (name, hash, version); the zip holds the executable tested", () => {
  const zipName = `mcp-workbench-${version}-windows-x64.zip`;
  assert.deepEqual(readdirSync(suite.release).sort(), ["SHA256SUMS", "mcp-workbench.json", zipName].sort());
  const zip = readFileSync(`${suite.release}/${zipName}`);
  const sums = readFileSync(`${suite.release}/SHA256SUMS`, "utf8");
  assert.equal(sums, `${sha256(zip)}  ${zipName}\n`);
  const manifest = JSON.parse(readFileSync(`${suite.release}/mcp-workbench.json`, "utf8"));
  assert.equal(manifest.version, version);
  assert.equal(manifest.architecture["64bit"].hash, sha256(zip));
  assert.equal(new URL(manifest.architecture["64bit"].url).pathname.split("/").pop(), zipName);
  assert.ok(manifest.autoupdate.architecture["64bit"].url.endsWith("/mcp-workbench-$version-windows-x64.zip"));
  const entries = readZip(zip);
  assert.deepEqual(entries.map((entry) => entry.name).sort(), ["LICENSE", "README.md", manifest.bin].sort());
  const exe = entries.find((entry) => entry.name === manifest.bin)!;
  assert.equal(sha256(exe.data), sha256(readFileSync(suite.workbench)), "the executable tested is the zip's");
});

test("wine: the zip's executable starts: --version names the manifest's version", async () => {
  const at = place();
  try {
    const ran = await runWine([winPath(suite.workbench), "--version"], { env: wineEnv(at) });
    assert.equal(ran.code, 0, described(ran));
    assert.equal(ran.stdout.trim(), `mcp-workbench ${version}`);
  } finally {
    cleanUp(at);
  }
});
