/**
 * The README as a new user reads it: short enough to read in ten minutes, every link to a file or
 * a heading resolves, and the set-up commands run as written, one after the other, on a fresh HOME
 * with a Claude Desktop file holding the everything server.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { npmServer, repoRoot } from "../helpers/runtime.ts";
import { runCli } from "../helpers/cli.ts";
import { removeTempDirs, tempDir } from "../helpers/workbench.ts";

after(removeTempDirs);

const readme = readFileSync(`${repoRoot}/README.md`, "utf8");
const documents = ["README.md", ...readdirSync(`${repoRoot}/docs`).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`)];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");
}

const wordsOf = (text: string) => text.split(/\s+/).filter(Boolean).length;

test("readme: the user's path fits in ten minutes (under 1,600 words before what goes beyond one user) and the reference lives in docs/", () => {
  const userPath = readme.slice(0, readme.indexOf("## Serve a team"));
  assert.ok(wordsOf(userPath) < 1600, `README.md has ${wordsOf(userPath)} words before "Serve a team"`);
  const sections = ["## Quick start", "## Install", "## Set up in one minute", "## What your client sees", "## Where the logs are", "## When something fails"];
  const beyond = ["## Serve a team", "## Trust", "## Live configuration", "## Code mode", "## Reference", "## Architecture"];
  const at = [...sections, ...beyond].map((heading) => readme.indexOf(`\n${heading}\n`));
  assert.ok(at.every((index) => index > 0), `every section is in README.md: ${[...sections, ...beyond].filter((_, i) => at[i] < 0).join(", ")}`);
  assert.deepEqual([...at].sort((a, b) => a - b), at, "in this order");
  // What goes beyond one user stays short too: each section points to its document in docs/.
  const beyondWords = wordsOf(readme.slice(readme.indexOf("## Serve a team"), readme.indexOf("## Reference")));
  assert.ok(beyondWords < 1200, `README.md has ${beyondWords} words from "Serve a team" to "Reference"`);
});

test("readme: every relative link in README.md and docs/ names a file that exists, and a heading in it", () => {
  for (const document of documents) {
    const text = readFileSync(`${repoRoot}/${document}`, "utf8");
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue;
      const [path, hash] = target.split("#");
      const file = path ? `${dirname(`${repoRoot}/${document}`)}/${path}` : `${repoRoot}/${document}`;
      assert.ok(existsSync(file), `${document} links to '${target}', which does not exist`);
      if (!hash) continue;
      const headings = [...readFileSync(file, "utf8").matchAll(/^#+ (.+)$/gm)].map(([, title]) => anchor(title));
      assert.ok(headings.includes(hash), `${document} links to '${target}': no such heading (${headings.join(", ")})`);
    }
  }
});

test("readme: every file of this repository that README.md or docs/ names exists", () => {
  const missing: string[] = [];
  for (const document of documents) {
    const text = readFileSync(`${repoRoot}/${document}`, "utf8");
    for (const [path] of text.matchAll(/\b(?:src|tests|scripts)\/[\w./-]+\.(?:ts|json|py)\b/g)) {
      if (!existsSync(`${repoRoot}/${path}`)) missing.push(`${document}: ${path}`);
    }
  }
  assert.deepEqual(missing, []);
});

test("readme: use_tool's introduction says to open the toolbox in the same connection, with Inspector lines that pass the workbench's own flags", () => {
  const section = readme.slice(readme.indexOf("## What your client sees"), readme.indexOf("## Where the logs are"));
  assert.ok(section.includes("Open a toolbox in the same connection before you call its tools"), section);
  assert.ok(section.includes("Toolbox 'dev' is not open"), section);
  assert.match(section, /inspector --cli .*mcp-workbench -- --config /);
  assert.match(section, /inspector --cli .*mcp-workbench -e WORKBENCH_CONFIG=/);
});

/** The words of one shell command line: single quotes hold spaces, `#` after a space starts a comment. */
function words(line: string): string[] {
  const found: string[] = [];
  for (const [, quoted, bare] of line.replace(/\s+#.*$/, "").matchAll(/'([^']*)'|(\S+)/g)) found.push(quoted ?? bare);
  return found;
}

test("readme: the set-up commands run as written on a fresh HOME, in order (init writes the toolbox the next ones name)", async () => {
  const start = readme.indexOf("## Set up in one minute");
  const block = readme.slice(readme.indexOf("```sh\n", start) + 6, readme.indexOf("```", readme.indexOf("```sh\n", start) + 6));
  const lines = block.split("\n").filter((line) => line.startsWith("mcp-workbench "));
  assert.ok(lines.length >= 3, block);
  const root = tempDir();
  const home = `${root}/home`;
  const desktop = `${home}/.config/Claude/claude_desktop_config.json`;
  mkdirSync(dirname(desktop), { recursive: true });
  writeFileSync(desktop, JSON.stringify({ mcpServers: { everything: npmServer("everything") } }));
  for (const line of lines) {
    const result = await runCli(words(line).slice(1), { env: { HOME: home }, cwd: root });
    assert.equal(result.code, 0, `${line}\n${result.stdout}${result.stderr}`);
  }
});
