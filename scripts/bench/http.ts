/**
 * Figure 9: echo over Streamable HTTP, one call at a time, through the workbench (a remote
 * server in a toolbox) and from a direct SDK client, against the same HTTP fixture on loopback.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import process from "node:process";
import { Client } from "../../src/protocol/sdk.ts";
import { StreamableHTTPClientTransport } from "../../src/protocol/sdk-remote.ts";
import { type LatencyFigures, measureLatency } from "./calls.ts";
import type { Plan } from "./plan.ts";
import { type BenchSetup, openToolbox, type ToolResult } from "./setup.ts";
import { BUN, repoRoot, type Target, workbenchCommand } from "./targets.ts";
import { RpcClient } from "./rpc-client.ts";

const FIXTURE = `${repoRoot}/tests/fixtures/http-server.ts`;
const REMOTE = "remote";
const START_MS = 30_000;

export async function measureHttp(target: Target, setup: BenchSetup, plan: Plan): Promise<LatencyFigures> {
  const { child, port } = await startFixture();
  const url = `http://127.0.0.1:${port}/mcp`;
  const configPath = `${setup.dir}/http-config.json`;
  writeFileSync(configPath, JSON.stringify({ toolboxes: { [REMOTE]: { mcpServers: { h: { type: "http", url } } } } }));
  const workbench = RpcClient.start({ ...workbenchCommand(target, configPath), cwd: setup.dir });
  const sdk = new Client({ name: "bench", version: "1.0.0" });
  try {
    await workbench.initialize();
    await openToolbox(workbench, REMOTE);
    await sdk.connect(new StreamableHTTPClientTransport(new URL(url)));
    return await measureLatency({
      workbench: {
        callTool: async (name, args) => {
          const params = { name: "use_tool", arguments: { tool: { toolbox: REMOTE, server: "h", name }, arguments: args } };
          return await workbench.request("tools/call", params) as ToolResult;
        },
      },
      direct: { callTool: async (name, args) => await sdk.callTool({ name, arguments: args }) as ToolResult },
    }, plan);
  } finally {
    await sdk.close().catch(() => {});
    await workbench.close();
    if (child.exitCode === null) process.kill(child.pid!, "SIGKILL");
  }
}

/** Our HTTP fixture, run by bun like the stdio fixture, on 127.0.0.1 and a free port. */
function startFixture(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(BUN, [FIXTURE], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error("the HTTP fixture did not start"));
    }, START_MS);
    child.stdout!.setEncoding("utf8").on("data", (text: string) => {
      out += text;
      const match = /listening (\d+)/.exec(out);
      if (!match) return;
      clearTimeout(timer);
      resolve({ child, port: Number(match[1]) });
    });
  });
}
