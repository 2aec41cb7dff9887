/**
 * Under Wine: the Windows executable serves a whole stdio session to the official SDK client, with
 * its servers compiled for Windows; a server that crashes during a call.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Client, ElicitRequestSchema } from "../helpers/sdk.ts";
import { cleanUp, connectThroughRelay, fixtureServer, place, type Place, textOf, waitUntagged, wineEnv, winPath, writeJson } from
  "./wine.ts";

const version = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version;

/** Toolbox `demo`: the SDK fixture (questions, crashes) by a backslashed path, the catalog fixture by a forward-slashed one. */
function demoConfig(at: Place): string {
  const catalog = fixtureServer(at, "catalog", { FIXTURE_RESOURCES: "file:///C:/notes/a.txt" });
  return writeJson(`${at.dir}/workbench-config.json`, {
    toolboxes: {
      demo: {
        description: "Servers compiled for Windows",
        mcpServers: {
          fx: fixtureServer(at, "server", { FIXTURE_CLIENT_FEATURES: "1", FIXTURE_FAILURES: "1" }),
          cat: { ...catalog, command: catalog.command.replaceAll("\\", "/") },
        },
      },
    },
  });
}

const useTool = (name: string, args: Record<string, unknown>) => ({
  name: "use_tool",
  arguments: { tool: { toolbox: "demo", server: "fx", name }, arguments: args },
});

test("wine: a stdio session, the SDK client: initialize, instructions, open_toolbox, use_tool, a question, prompt, resource", async () => {
  const at = place();
  try {
    const client = new Client({ name: "wine-test", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content: { name: "Ada" } }));
    const session = await connectThroughRelay(["--config", winPath(demoConfig(at))], { env: wineEnv(at), client });
    assert.deepEqual(client.getServerVersion(), { name: "mcp-workbench", version });
    assert.match(client.getInstructions() ?? "", /- demo: Servers compiled for Windows \(2 servers/);
    assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name), ["open_toolbox", "use_tool"]);
    const opened = JSON.parse(textOf(await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "demo" } })));
    assert.equal(opened.servers_connected, 2);
    assert.ok(opened.tools.some((tool: { name: string; source_server: string }) => tool.name === "confirm" && tool.source_server === "fx"));
    assert.equal(textOf(await client.callTool(useTool("echo", { text: "héllo ✓ C:\\x" }))), "fixture: héllo ✓ C:\\x");
    assert.equal(textOf(await client.callTool(useTool("confirm", { what: "deploy" }))), "deploy confirmed by Ada");
    const prompt = await client.getPrompt({ name: "demo__cat__greet", arguments: { name: "Ada" } });
    assert.deepEqual(prompt.messages[0].content, { type: "text", text: "catalog: hello Ada" });
    const { resources } = await client.listResources();
    assert.deepEqual(resources.map((resource) => resource.uri), ["file:///C:/notes/a.txt"]);
    const read = await client.readResource({ uri: "file:///C:/notes/a.txt" });
    const uri = "file:///C:/notes/a.txt";
    assert.deepEqual(read.contents, [{ uri, mimeType: "text/plain", text: `catalog read ${uri}` }]);
    await client.close();
    assert.deepEqual(await waitUntagged(at.tag, 15_000), [], "the workbench and its servers are gone");
    assert.match(session.stderr(), /stopping \(the client closed the connection\)/);
    // The pins, written privately (a temporary file, then a link) beside the configuration.
    const lock = JSON.parse(readFileSync(`${at.dir}/workbench-lock.json`, "utf8"));
    assert.ok(JSON.stringify(lock).includes("confirm"), JSON.stringify(lock).slice(0, 500));
  } finally {
    cleanUp(at);
  }
});

test("wine: a server that crashes during a call fails that call with its last words, and the next call starts it again", async () => {
  const at = place();
  try {
    const { client, stderr } = await connectThroughRelay(["--config", winPath(demoConfig(at))], { env: wineEnv(at) });
    await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "demo" } });
    const crashed = await client.callTool(useTool("crash", { text: "out of disk on D:\\", code: 3 }));
    assert.equal(crashed.isError, true);
    assert.match(textOf(crashed), /server exited with code 3; its stderr ended with: out of disk on D:\\/);
    assert.equal(textOf(await client.callTool(useTool("echo", { text: "back" }))), "fixture: back");
    await client.close();
    assert.deepEqual(await waitUntagged(at.tag, 15_000), []);
    assert.match(stderr(), /\[demo\/fx\] server exited with code 3/);
  } finally {
    cleanUp(at);
  }
});
