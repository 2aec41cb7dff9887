/**
 * The main job, to watch: builds the executable, then runs a real MCP session through it with the
 * official SDK client against three reference servers from npm (everything, memory, filesystem).
 * Every request and an excerpt of every answer is printed: the toolboxes, a tool of each server, a
 * question a server asks during a call (answered by this client), a prompt and a resource.
 *
 * `bun scripts/demo.ts -- COMMAND [ARGS...]` runs the same session through another workbench
 * command (the source, another build) without building: tests/e2e/demo.test.ts does.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import process from "node:process";
import { Client, ElicitRequestSchema, StdioClientTransport } from "../tests/helpers/sdk.ts";

const root = new URL("..", import.meta.url).pathname;
const bun = `${root}node_modules/.bin/bun`;
const server = (name: string) => `${root}node_modules/@modelcontextprotocol/server-${name}/dist/index.js`;

const dash = process.argv.indexOf("--");
const [command, ...commandArgs] = dash >= 0 ? process.argv.slice(dash + 1) : [`${root}dist/mcp-workbench`];
if (dash < 0) {
  const built = spawnSync(bun, [`${root}scripts/build.ts`], { stdio: "inherit" });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

const dir = mkdtempSync(`${tmpdir()}/workbench-demo-`);
writeFileSync(`${dir}/notes.txt`, "Hello from the filesystem server.\n");
const config = {
  toolboxes: {
    reference: {
      description: "The reference MCP servers",
      mcpServers: {
        everything: { command: bun, args: [server("everything")] },
        memory: { command: bun, args: [server("memory")], env: { MEMORY_FILE_PATH: `${dir}/memory.jsonl` } },
        filesystem: { command: bun, args: [server("filesystem"), dir] },
      },
    },
    empty: { description: "A toolbox with no servers yet", mcpServers: {} },
  },
};
writeFileSync(`${dir}/workbench-config.json`, JSON.stringify(config, null, 2));

const show = (label: string, value: unknown, max = 400) => {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  console.log(`\n${label}\n  ${text.length > max ? `${text.slice(0, max)}... (${text.length} chars)` : text}`);
};

const transport = new StdioClientTransport({
  command,
  args: [...commandArgs, "--config", `${dir}/workbench-config.json`],
  env: { PATH: process.env.PATH ?? "", HOME: dir },
  stderr: "inherit",
});
// This client can answer a form (elicitation): a server's question during a call comes to it
// through the workbench, as it would from the server directly.
const client = new Client({ name: "workbench-demo", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
client.setRequestHandler(ElicitRequestSchema, (request) => {
  show("<- the server asks this client (elicitation/create, relayed by the workbench)", request.params.message);
  const content = { name: "Ada Lovelace", check: true };
  show("-> this client answers", { action: "accept", content });
  return { action: "accept", content };
});
try {
  console.log(`\n$ ${[command, ...commandArgs].join(" ")} --config ${dir}/workbench-config.json`);
  await client.connect(transport);
  show("initialize -> serverInfo", client.getServerVersion());
  show("initialize -> instructions", client.getInstructions() ?? "", 2000);
  show("tools/list", (await client.listTools()).tools.map((t) => t.name));

  const opened = await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "reference" } });
  const toolbox = JSON.parse((opened.content as { text: string }[])[0].text);
  show("open_toolbox {toolbox_name: reference}", {
    servers_connected: toolbox.servers_connected,
    tools: toolbox.tools.map((t: { source_server: string; name: string }) => `${t.source_server}/${t.name}`),
  }, 2000);

  const calls = [
    { server: "everything", name: "echo", arguments: { message: "hello through the workbench" } },
    { server: "memory", name: "create_entities", arguments: { entities: [{ name: "Workbench", entityType: "project", observations: ["proxies MCP servers"] }] } },
    { server: "memory", name: "read_graph", arguments: {} },
    { server: "filesystem", name: "read_text_file", arguments: { path: `${dir}/notes.txt` } },
    { server: "everything", name: "trigger-elicitation-request", arguments: {} },
  ];
  for (const call of calls) {
    const args = { tool: { toolbox: "reference", server: call.server, name: call.name }, arguments: call.arguments };
    const result = await client.callTool({ name: "use_tool", arguments: args });
    show(`use_tool ${JSON.stringify(args)}`, result);
  }
  const mistake = await client.callTool({
    name: "use_tool",
    arguments: { tool: { toolbox: "reference", server: "filesystem", name: "delete_everything" } },
  });
  show("use_tool with a tool that does not exist", mistake);

  // Prompts and resources of every toolbox, for the client's own pickers (never in the model's context).
  const prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
  show("prompts/list (names are toolbox__server__prompt)", prompts);
  const prompt = await client.getPrompt({ name: "reference__everything__args-prompt", arguments: { city: "Lisbon" } });
  show('prompts/get reference__everything__args-prompt {city: "Lisbon"}', prompt.messages);
  const resources = (await client.listResources()).resources.map((resource) => resource.uri);
  show("resources/list (URIs as the servers gave them)", resources);
  const read = await client.readResource({ uri: "demo://resource/dynamic/text/5" });
  show("resources/read demo://resource/dynamic/text/5", read.contents);
  console.log("\nDemo finished: the session closes, the workbench stops its servers and exits.");
} finally {
  await client.close();
  rmSync(dir, { recursive: true, force: true });
}
