/**
 * The main job, to watch: builds the executable, then runs a real MCP session through it with the
 * official SDK client against three reference servers from npm (everything, memory, filesystem).
 * Every request and an excerpt of every answer is printed.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import process from "node:process";
import { Client, StdioClientTransport } from "../tests/helpers/sdk.ts";

const root = new URL("..", import.meta.url).pathname;
const binary = `${root}dist/mcp-workbench`;
const bun = `${root}node_modules/.bin/bun`;
const server = (name: string) => `${root}node_modules/@modelcontextprotocol/server-${name}/dist/index.js`;

const built = spawnSync(bun, [`${root}scripts/build.ts`], { stdio: "inherit" });
if (built.status !== 0) process.exit(built.status ?? 1);

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
  command: binary,
  args: ["--config", `${dir}/workbench-config.json`],
  env: { PATH: process.env.PATH ?? "", HOME: dir },
  stderr: "inherit",
});
const client = new Client({ name: "workbench-demo", version: "1.0.0" });
try {
  console.log(`\n$ ${binary} --config ${dir}/workbench-config.json`);
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
  console.log("\nDemo finished: the session closes, the workbench stops its servers and exits.");
} finally {
  await client.close();
  rmSync(dir, { recursive: true, force: true });
}
