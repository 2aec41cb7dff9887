/**
 * The conformance suite's elicitation scenario (SEP-1034: the client applies the defaults of the
 * fields it leaves out), played by an official SDK client in front of mcp-workbench: the client
 * declares form elicitation with applyDefaults and accepts with empty content; the workbench
 * relays the scenario server's elicitation/create to it and the answer back, as a direct
 * connection would. Run by adapter.ts with the scenario's URL as the last argument.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import process from "node:process";
import { Client, ElicitRequestSchema, StdioClientTransport } from "../helpers/sdk.ts";

export async function playElicitationDefaults(url: string, workbench: string[]): Promise<number> {
  const dir = mkdtempSync(`${tmpdir()}/workbench-conformance-`);
  const config = `${dir}/workbench-config.json`;
  writeFileSync(config, JSON.stringify({ toolboxes: { tb: { mcpServers: { srv: { type: "http", url } } } } }));
  const client = new Client({ name: "conformance-elicitation", version: "1.0.0" }, { capabilities: { elicitation: { form: { applyDefaults: true } } } });
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept" as const, content: {} }));
  const [command, ...args] = workbench;
  const transport = new StdioClientTransport({
    command,
    args: [...args, "--config", config],
    env: { PATH: process.env.PATH ?? "", HOME: dir, WORKBENCH_CACHE_DIR: `${dir}/cache` },
    stderr: "inherit",
  });
  try {
    await client.connect(transport);
    await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "tb" } });
    const result = await client.callTool({
      name: "use_tool",
      arguments: { tool: { toolbox: "tb", server: "srv", name: "test_client_elicitation_defaults" }, arguments: {} },
    });
    console.log(JSON.stringify(result));
    return result.isError ? 1 : 0;
  } finally {
    await client.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}
