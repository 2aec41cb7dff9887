/** `mcp-workbench tools` and `call` against the fixture and a reference server. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { npmServer } from "../helpers/runtime.ts";
import { tempDir, writeConfig } from "../helpers/workbench.ts";
import { runCli } from "../helpers/cli.ts";
import { fx } from "../helpers/toolbox.ts";
import { fixtureTools } from "../fixtures/fixture-tools.ts";
import type { OpenToolboxResult } from "../../src/tools/open-toolbox.ts";

const CONFIG = {
  toolboxes: {
    dev: { description: "Fixture and memory", mcpServers: { fx: fx("A"), memory: npmServer("memory") } },
    multiline: { description: "m", mcpServers: { fx: fx("First line\nsecond line") } },
    broken: {
      description: "b",
      mcpServers: { fx: fx("B"), quitter: { command: "sh", args: ["-c", "echo 'TOKEN is not set' >&2; exit 5"] } },
    },
  },
};

/** Runs the command with CONFIG in a fresh folder (also its working folder). */
async function cli(args: string[], options: { input?: string; files?: Record<string, string> } = {}) {
  const dir = tempDir();
  try {
    const path = writeConfig(dir, CONFIG);
    for (const [name, text] of Object.entries(options.files ?? {})) writeFileSync(`${dir}/${name}`, text);
    return await runCli([...args, "--config", path], { cwd: dir, input: options.input });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("tools: one line per tool, server/name and the first line of its description", async () => {
  const result = await cli(["tools", "dev"]);
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout.trimEnd().split("\n");
  const fixture = fixtureTools("A");
  assert.equal(lines.length, fixture.length + 9);
  assert.match(lines[0], /^fx\/echo {2,}A: echo the text back$/);
  assert.ok(lines.includes("fx/no_description"), "a tool without a description is its name alone");
  assert.match(lines.at(-1)!, /^memory\/open_nodes {2,}Open specific nodes/);
  assert.equal(result.stderr, "");
  const multiline = await cli(["tools", "multiline"]);
  const multilines = multiline.stdout.trimEnd().split("\n");
  assert.match(multilines[0], /^fx\/echo {2,}First line$/);
  assert.ok(multilines.every((line) => line.startsWith("fx/")), multiline.stdout);
});

test("tools --json: the full entries, exactly as open_toolbox returns them", async () => {
  const result = await cli(["tools", "--json", "dev"]);
  assert.equal(result.code, 0, result.stderr);
  const value = JSON.parse(result.stdout) as OpenToolboxResult;
  assert.equal(value.toolbox, "dev");
  assert.equal(value.servers_connected, 2);
  const echo = value.tools[0];
  assert.deepEqual(echo, {
    name: "echo",
    toolbox_name: "dev",
    source_server: "fx",
    description: "A: echo the text back",
    inputSchema: fixtureTools("A")[0].inputSchema,
  });
  assert.equal(value.tools.filter((tool) => tool.source_server === "memory").length, 9);
});

test("tools: a server that fails is said on stderr with its stderr lines and exits 1, as check does, after the others' tools; an unknown toolbox exits 2", async () => {
  const partly = await cli(["tools", "broken"]);
  assert.equal(partly.code, 1);
  assert.ok(partly.stdout.startsWith("fx/echo "), partly.stdout);
  assert.equal(
    partly.stderr,
    "mcp-workbench: Failed to connect to server 'quitter' in toolbox 'broken': server exited with code 5 during " +
      "initialization; its stderr ended with: TOKEN is not set\n",
  );
  const unknown = await cli(["tools", "nope"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /^mcp-workbench: Toolbox 'nope' not found in configuration '\S+\/workbench-config\.json'; available toolboxes: 'dev', 'multiline', 'broken'\n$/);
});

test("call: success prints the text as it is, from ARGS given inline, from @file and from stdin", async () => {
  const inline = await cli(["call", "dev", "fx", "echo", '{"text": "hello"}']);
  assert.equal(inline.code, 0, inline.stderr);
  assert.equal(inline.stdout, "A: hello\n");
  const fromFile = await cli(["call", "dev", "fx", "echo", "@args.json"], { files: { "args.json": '{"text": "from a file"}' } });
  assert.equal(fromFile.stdout, "A: from a file\n", fromFile.stderr);
  const fromStdin = await cli(["call", "dev", "fx", "echo", "-"], { input: '{"text": "from stdin"}' });
  assert.equal(fromStdin.stdout, "A: from stdin\n", fromStdin.stderr);
  const reference = await cli(["call", "dev", "memory", "read_graph"]);
  assert.equal(reference.code, 0, reference.stderr);
  assert.deepEqual(JSON.parse(reference.stdout), { entities: [], relations: [] });
});

test("call: a result with isError exits 1 with its text on stderr; a failed call exits 1 with the message", async () => {
  const failed = await cli(["call", "dev", "fx", "fail"]);
  assert.equal(failed.code, 1);
  assert.equal(failed.stdout, "");
  assert.equal(failed.stderr, "A: this tool failed\n");
  const unknownTool = await cli(["call", "dev", "fx", "nope"]);
  assert.equal(unknownTool.code, 1);
  assert.equal(unknownTool.stderr, "mcp-workbench: Error executing tool: Tool 'nope' not found in server 'fx' (toolbox 'dev')\n");
  const down = await cli(["call", "broken", "quitter", "echo"]);
  assert.equal(down.code, 1);
  assert.match(
    down.stderr,
    /^mcp-workbench: Failed to connect to server 'quitter' in toolbox 'broken': server exited with code 5 during initialization; its stderr ended with: TOKEN is not set\n$/,
  );
});

test("call: bad ARGS, a missing ARGS file and an unknown toolbox exit 2", async () => {
  const notJson = await cli(["call", "dev", "fx", "echo", "{text: hi}"]);
  assert.equal(notJson.code, 2);
  assert.equal(notJson.stderr, `mcp-workbench: Invalid ARGS: not valid JSON; expected a JSON object, e.g. '{"path": "/tmp"}'\n`);
  const notObject = await cli(["call", "dev", "fx", "echo", "[1]"]);
  assert.equal(notObject.code, 2);
  assert.equal(notObject.stderr, `mcp-workbench: Invalid ARGS: expected a JSON object, e.g. '{"path": "/tmp"}'\n`);
  const noFile = await cli(["call", "dev", "fx", "echo", "@missing.json"]);
  assert.equal(noFile.code, 2);
  assert.match(noFile.stderr, /^mcp-workbench: Cannot read ARGS file '.*\/missing\.json': /);
  const noToolbox = await cli(["call", "nope", "fx", "echo", "{}"]);
  assert.equal(noToolbox.code, 2);
  const misspelt = await cli(["call", "dve", "fx", "echo", "{}"]);
  assert.equal(misspelt.code, 2);
  assert.match(
    misspelt.stderr,
    /^mcp-workbench: Toolbox 'dve' not found in configuration '\S+\/workbench-config\.json'; available toolboxes: 'dev', 'multiline', 'broken'\. Did you mean 'dev'\?\n$/,
  );
  // Arguments that do not fit the tool's schema are a failed call, not a usage error.
  const badFit = await cli(["call", "dev", "fx", "echo", '{"text": 5}']);
  assert.equal(badFit.code, 1, badFit.stderr);
  const missingArgument = await cli(["call", "dev", "fx"]);
  assert.equal(missingArgument.code, 2);
  assert.equal(
    missingArgument.stderr,
    "mcp-workbench: Missing argument tool: call <toolbox> <server> <tool> [ARGS] (see --help)\n",
  );
});
