/**
 * Release packaging: the pure pieces on their own, the manifests from small fake archives, and one
 * real run of scripts/release.ts that compiles only this machine's target.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import process from "node:process";
import pkg from "../../package.json" with { type: "json" };
import { CHECKSUMS_FILE, formatChecksums, writeChecksums } from "../../scripts/release/checksums.ts";
import {
  autoupdateUrl,
  describeArchive,
  FORMULA_TEMPLATE,
  type ReleaseInfo,
  renderFormula,
  renderScoopManifest,
  SCOOP_TEMPLATE,
} from "../../scripts/release/manifests.ts";
import { archiveName, hostTarget, parseTargetList, type Target, TARGETS } from "../../scripts/release/targets.ts";
import { renderTemplate } from "../../scripts/release/template.ts";
import { createZip, readZip } from "../../scripts/release/zip.ts";
import { runToEnd } from "../helpers/process.ts";
import { repoRoot, runScript } from "../helpers/runtime.ts";

const FAKE_VERSION = "9.8.7";
const BASE_URL = `https://example.invalid/releases/v${FAKE_VERSION}`;

function tempDir(): string {
  return mkdtempSync(`${tmpdir()}/workbench-release-test-`);
}

function sha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** Whether a tool is on PATH: spawning a missing command fails before it runs. */
function commandAvailable(command: string, probe: string): boolean {
  return spawnSync(command, [probe], { stdio: "ignore", timeout: 10_000 }).error === undefined;
}

/** `ruby -c` when Ruby is installed; otherwise the skip is said out loud, not silent. */
function assertValidRuby(path: string): void {
  if (!commandAvailable("ruby", "--version")) {
    console.log(`Skipped "ruby -c" of ${path}: ruby is not on PATH`);
    return;
  }
  const result = spawnSync("ruby", ["-c", path], { encoding: "utf8", timeout: 20_000 });
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /Syntax OK/);
}

/** The formula's on_macos/on_linux structure without its url and sha256 lines. */
function platformBlocks(formula: string): string {
  const blocks = formula.slice(formula.indexOf("  on_"), formula.indexOf("  def install")).trimEnd();
  return blocks.split("\n").filter((line) => !/^\s+(url|sha256) "/.test(line)).join("\n");
}

/** The environment for a child: tar and friends must stay on PATH. */
function definedEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** Small stand-ins for the archives, named as the release names them (the zip is a real one). */
function writeFakeArchives(dir: string, targets: readonly Target[] = TARGETS): ReleaseInfo {
  for (const target of targets) {
    const content = new TextEncoder().encode(`fake ${target.executable} for ${target.id}\n`);
    const zip = () => createZip([{ name: target.executable, data: content, mode: 0o755, modified: new Date() }]);
    writeFileSync(`${dir}/${archiveName(FAKE_VERSION, target)}`, target.archiveFormat === "zip" ? zip() : content);
  }
  return {
    version: FAKE_VERSION,
    description: pkg.description,
    homepage: "https://example.invalid/mcp-workbench",
    license: pkg.license,
    baseUrl: BASE_URL,
    archives: targets.map((target) => describeArchive(dir, FAKE_VERSION, BASE_URL, target)),
  };
}

test("release: archive names carry version, os and arch; only Windows gets a zip", () => {
  assert.deepEqual(TARGETS.map((target) => archiveName("1.2.3", target)), [
    "mcp-workbench-1.2.3-linux-x64.tar.gz",
    "mcp-workbench-1.2.3-linux-arm64.tar.gz",
    "mcp-workbench-1.2.3-darwin-x64.tar.gz",
    "mcp-workbench-1.2.3-darwin-arm64.tar.gz",
    "mcp-workbench-1.2.3-windows-x64.zip",
  ]);
  assert.deepEqual(TARGETS.map((target) => target.bunTarget), [
    "bun-linux-x64",
    "bun-linux-aarch64",
    "bun-darwin-x64",
    "bun-darwin-aarch64",
    "bun-windows-x64",
  ]);
});

test("release: target lists parse, reject unknown names, and the host maps to its target", () => {
  assert.deepEqual(parseTargetList("darwin-arm64, linux-x64,darwin-arm64").map((t) => t.id), ["darwin-arm64", "linux-x64"]);
  assert.throws(() => parseTargetList("linux-x64,plan9-x64"), /^Error: Unknown target "plan9-x64" \(known: linux-x64, /);
  assert.throws(() => parseTargetList(" , "), /No targets in " , "/);
  assert.equal(hostTarget("linux", "x64")?.id, "linux-x64");
  assert.equal(hostTarget("darwin", "arm64")?.id, "darwin-arm64");
  assert.equal(hostTarget("win32", "x64")?.id, "windows-x64");
  assert.equal(hostTarget("freebsd", "x64"), undefined);
});

test("release: rendering fails on a leftover placeholder or marker, and escapes values", () => {
  assert.equal(renderTemplate("{{a}} and {{b.c}}", { a: "1", "b.c": "2" }), "1 and 2");
  assert.throws(() => renderTemplate("{{a}} and {{b}}", { a: "1" }), /Template placeholders left unfilled: "\{\{b\}\}"/);
  assert.throws(() => renderTemplate("x {{#inline}} y\n", {}), /Template marker "\{\{#inline\}\}" left unfilled/);
  assert.throws(() => renderTemplate("  {{#s}}\nx\n  {{/s}}\n", {}), /Template section "\{\{#s\}\}" has no value/);
  // A value that looks like a placeholder is content, not a leftover.
  assert.equal(renderTemplate('"{{a}}"', { a: '{{b}} "#{x}"' }, { escape: (v) => v.replace(/"/g, '\\"') }), '"{{b}} \\"#{x}\\""');
});

test("release: sections are kept or dropped whole, nested ones too", () => {
  const template = "start\n{{#outer}}\n  o\n  {{#inner}}\n  i {{v}}\n  {{/inner}}\n{{/outer}}\nend\n";
  assert.equal(renderTemplate(template, { v: "1" }, { sections: { outer: true, inner: true } }), "start\n  o\n  i 1\nend\n");
  assert.equal(renderTemplate(template, {}, { sections: { outer: true, inner: false } }), "start\n  o\nend\n");
  assert.equal(renderTemplate(template, {}, { sections: { outer: false } }), "start\nend\n");
});

test("release: SHA256SUMS has '<hex>  <name>' lines sorted by name, as sha256sum prints", () => {
  const dir = tempDir();
  try {
    const names = ["b.zip", "a.tar.gz", "B.tar.gz"];
    for (const name of names) writeFileSync(`${dir}/${name}`, name);
    const path = writeChecksums(dir, names.map((fileName) => ({ fileName, sha256: sha256(`${dir}/${fileName}`) })));
    assert.equal(path, `${dir}/${CHECKSUMS_FILE}`);
    const lines = readFileSync(path, "utf8").split("\n");
    assert.equal(lines.pop(), "", "ends with a newline");
    assert.deepEqual(lines.map((line) => line.split("  ")[1]), ["B.tar.gz", "a.tar.gz", "b.zip"]);
    for (const line of lines) {
      assert.match(line, /^[0-9a-f]{64} {2}\S+$/);
      assert.equal(line.slice(0, 64), sha256(`${dir}/${line.slice(66)}`));
    }
    if (commandAvailable("sha256sum", "--version")) {
      const check = spawnSync("sha256sum", ["-c", CHECKSUMS_FILE], { cwd: dir, encoding: "utf8", timeout: 10_000 });
      assert.equal(check.status, 0, check.stdout + check.stderr);
    }
    assert.equal(formatChecksums([]), "");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("release: the zip writer's archives read back, with our reader and with unzip when installed", () => {
  const dir = tempDir();
  try {
    const executable = new Uint8Array(200_000).map((_, index) => (index * 7) % 251);
    const entries = [
      { name: "mcp-workbench.exe", data: executable, mode: 0o755, modified: new Date(2025, 0, 2, 3, 4, 6) },
      { name: "README.md", data: new TextEncoder().encode("# Read me\n"), mode: 0o644, modified: new Date() },
      { name: "empty", data: new Uint8Array(0), mode: 0o644, modified: new Date() },
    ];
    const path = `${dir}/test.zip`;
    writeFileSync(path, createZip(entries));
    const listing = readZip(readFileSync(path));
    assert.deepEqual(listing.map(({ name, mode }) => ({ name, mode })), entries.map(({ name, mode }) => ({ name, mode })));
    assert.deepEqual(new Uint8Array(listing[0].data), executable);
    assert.equal(listing[1].data.toString("utf8"), "# Read me\n");
    if (!commandAvailable("unzip", "-v")) {
      console.log("Skipped the unzip cross-check: unzip is not on PATH");
      return;
    }
    const integrity = spawnSync("unzip", ["-t", path], { encoding: "utf8", timeout: 10_000 });
    assert.equal(integrity.status, 0, integrity.stdout + integrity.stderr);
    const list = spawnSync("unzip", ["-l", path], { encoding: "utf8", timeout: 10_000 });
    assert.match(list.stdout, /200000\s+2025-01-02 03:04\s+mcp-workbench\.exe/);
    const extracted = spawnSync("unzip", ["-p", path, "mcp-workbench.exe"], { timeout: 10_000, maxBuffer: 1 << 20 });
    assert.deepEqual(new Uint8Array(extracted.stdout), executable);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("release: the formula from fake archives of all five targets is Ruby with each url and sha256", () => {
  const dir = tempDir();
  try {
    const info = writeFakeArchives(dir);
    const { text, missing } = renderFormula(readFileSync(FORMULA_TEMPLATE, "utf8"), info);
    assert.deepEqual(missing, []);
    assert.match(text, /^class McpWorkbench < Formula$/m);
    assert.match(text, new RegExp(`^  version "${FAKE_VERSION}"$`, "m"));
    assert.ok(text.includes('\n  license "MIT"\n'));
    for (const archive of info.archives.filter((a) => a.target.os !== "windows")) {
      assert.ok(text.includes(`url "${archive.url}"\n      sha256 "${archive.sha256}"\n`), archive.target.id);
      assert.equal(archive.sha256, sha256(`${dir}/${archive.fileName}`));
    }
    assert.ok(!text.includes("windows"), "no Windows archive in a Homebrew formula");
    assert.equal(platformBlocks(text), [
      "  on_macos do", "    on_arm do", "    end", "    on_intel do", "    end", "  end", "",
      "  on_linux do", "    on_arm do", "    end", "    on_intel do", "    end", "  end",
    ].join("\n"));
    assert.ok(text.includes('\n  def install\n    bin.install "mcp-workbench"\n  end\n'));
    assert.ok(text.includes('  test do\n    assert_match version.to_s, shell_output("#{bin}/mcp-workbench --version")\n  end\n'));
    writeFileSync(`${dir}/mcp-workbench.rb`, text);
    assertValidRuby(`${dir}/mcp-workbench.rb`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("release: a formula without some archives leaves their blocks out and says which", () => {
  const dir = tempDir();
  try {
    const info = writeFakeArchives(dir, parseTargetList("linux-x64,darwin-arm64"));
    const { text, missing } = renderFormula(readFileSync(FORMULA_TEMPLATE, "utf8"), info);
    assert.deepEqual(missing, ["darwin-x64", "linux-arm64"]);
    assert.equal(text.match(/ sha256 "/g)?.length, 2);
    assert.equal(platformBlocks(text), [
      "  on_macos do", "    on_arm do", "    end", "  end", "",
      "  on_linux do", "    on_intel do", "    end", "  end",
    ].join("\n"));
    assert.ok(!text.includes("{{") && !text.includes("\n\n\n"), text);
    writeFileSync(`${dir}/partial.rb`, text);
    assertValidRuby(`${dir}/partial.rb`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("release: the Scoop manifest is JSON with Scoop's fields, and its hash is the zip's sha256", () => {
  const dir = tempDir();
  try {
    const info = writeFakeArchives(dir);
    const zipName = `mcp-workbench-${FAKE_VERSION}-windows-x64.zip`;
    const manifest = JSON.parse(renderScoopManifest(readFileSync(SCOOP_TEMPLATE, "utf8"), info) ?? "null");
    assert.equal(manifest.version, FAKE_VERSION);
    assert.equal(manifest.description, pkg.description);
    assert.equal(manifest.license, "MIT");
    assert.deepEqual(manifest.architecture, { "64bit": { url: `${BASE_URL}/${zipName}`, hash: sha256(`${dir}/${zipName}`) } });
    assert.equal(manifest.bin, "mcp-workbench.exe");
    assert.deepEqual(manifest.checkver, { github: info.homepage });
    assert.deepEqual(manifest.autoupdate, {
      architecture: { "64bit": { url: "https://example.invalid/releases/v$version/mcp-workbench-$version-windows-x64.zip" } },
      hash: { url: "$baseurl/SHA256SUMS" },
    });
    const withoutWindows = { ...info, archives: info.archives.filter((a) => a.target.id !== "windows-x64") };
    assert.equal(renderScoopManifest(readFileSync(SCOOP_TEMPLATE, "utf8"), withoutWindows), undefined);
    // A base URL without the version cannot follow new releases; it is kept as given.
    assert.equal(
      autoupdateUrl("https://cdn.example.invalid/latest", "1.0.0", TARGETS[4]),
      "https://cdn.example.invalid/latest/mcp-workbench-$version-windows-x64.zip",
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// Compiling takes about a second, gzip of a 100 MB executable several more: above Bun's 5 s default.
const REAL_RUN = "release: a real run for this machine's target packs a working executable and its checksum";
test(REAL_RUN, { timeout: 55_000 }, async () => {
  const host = hostTarget(process.platform, process.arch);
  if (!host || host.os === "windows") {
    console.log(`Skipped the real release run: no tar.gz target for "${process.platform}-${process.arch}"`);
    return;
  }
  const dir = tempDir();
  try {
    const out = `${dir}/out`;
    const flags = ["--version", FAKE_VERSION, "--targets", host.id, "--out", out];
    const { command, args } = runScript(`${repoRoot}/scripts/release.ts`, flags);
    const run = await runToEnd(command, args, { env: definedEnv(), cwd: repoRoot, timeoutMs: 50_000 });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const name = archiveName(FAKE_VERSION, host);
    const summaryRow = `^${host.id} +${host.bunTarget} +built +\\d+\\.\\d MiB +\\d+\\.\\d s +${name.replaceAll(".", "\\.")}$`;
    assert.match(run.stdout, new RegExp(summaryRow, "m"));
    assert.match(run.stdout, new RegExp(`the executables report "${pkg.version}" \\(package\\.json\\), not "${FAKE_VERSION}"`));
    assert.match(run.stdout, /Homebrew formula is incomplete: no archive for "/);
    assert.match(run.stdout, /Scoop manifest not written: "windows-x64" was not built/);

    assert.equal(readFileSync(`${out}/${CHECKSUMS_FILE}`, "utf8"), `${sha256(`${out}/${name}`)}  ${name}\n`);
    mkdirSync(`${dir}/unpacked`);
    const untar = spawnSync("tar", ["-xzf", `${out}/${name}`, "-C", `${dir}/unpacked`], { encoding: "utf8", timeout: 30_000 });
    assert.equal(untar.status, 0, untar.stderr);
    const executable = `${dir}/unpacked/mcp-workbench`;
    assert.equal(statSync(executable).mode & 0o777, 0o755);
    assert.ok(statSync(`${dir}/unpacked/README.md`).isFile());
    // The version is compiled in from package.json; only the archive name carries the requested one.
    const version = spawnSync(executable, ["--version"], { encoding: "utf8", timeout: 10_000 });
    assert.equal(version.stdout, `mcp-workbench ${pkg.version}\n`);

    const formula = readFileSync(`${out}/mcp-workbench.rb`, "utf8");
    const defaultBaseUrl = `https://github.com/mcp-workbench/mcp-workbench/releases/download/v${FAKE_VERSION}`;
    assert.ok(formula.includes(`url "${defaultBaseUrl}/${name}"`), formula);
    assertValidRuby(`${out}/mcp-workbench.rb`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
