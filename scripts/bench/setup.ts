/**
 * The bench's one workbench configuration (three toolboxes, which is also the context-cost config)
 * and the two ways of calling the fixture: through the workbench's use_tool, or directly.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { fixtureCommand, referenceCommand, type Target, workbenchCommand } from "./targets.ts";
import { type Command, RpcClient } from "./rpc-client.ts";

/** Toolbox names; `mixed` holds the three reference servers from npm and five fixtures. */
export const ONE = "one";
export const EIGHT = "eight";
export const MIXED = "mixed";
const FIXTURE_SERVER = "s1";

export interface BenchSetup {
  dir: string;
  configPath: string;
  /** The workbench's environment additions: a catalog cache of the bench's own, never the user's. */
  workbenchEnv: Record<string, string>;
  /** The servers of `mixed`, by name, to list their tools directly. */
  mixedServers: Record<string, Command>;
  cleanup(): void;
}

export function createSetup(): BenchSetup {
  const dir = mkdtempSync(`${tmpdir()}/workbench-bench-`);
  const allowed = `${dir}/files`;
  mkdirSync(allowed);
  const mixedServers: Record<string, Command> = {
    everything: referenceCommand("everything"),
    memory: { ...referenceCommand("memory"), env: { MEMORY_FILE_PATH: `${dir}/memory.jsonl` } },
    filesystem: referenceCommand("filesystem", [allowed]),
    ...fixtures(5),
  };
  const config = {
    toolboxes: {
      // The default maxMessageBytes (64 MiB) counts the whole message: a 64 MiB blob plus its
      // JSON-RPC envelope needs the limit raised, which is what a user moving such payloads does.
      // maxResultTokens 0: the blobs are relayed whole (the default would cut them to a page).
      [ONE]: { description: "One benchmark fixture", mcpServers: fixtures(1, { maxMessageBytes: BLOB_LIMIT_BYTES, maxResultTokens: 0 }) },
      [EIGHT]: { description: "Eight benchmark fixtures", mcpServers: fixtures(8) },
      [MIXED]: { description: "Reference servers and fixtures", mcpServers: mixedServers },
    },
  };
  const configPath = `${dir}/workbench-config.json`;
  writeFileSync(configPath, JSON.stringify(config, null, 2));
  const workbenchEnv = { WORKBENCH_CACHE_DIR: `${dir}/cache` };
  return { dir, configPath, workbenchEnv, mixedServers, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The `one` toolbox's message limit: room for the 64 MiB blob and its envelope. */
export const BLOB_LIMIT_BYTES = 80 * 1024 * 1024;

/** Fixture servers s1..sN, each labelled with its name. */
function fixtures(count: number, settings: Record<string, unknown> = {}): Record<string, Command> {
  const entries = Array.from({ length: count }, (_, index) => `s${index + 1}`);
  return Object.fromEntries(entries.map((name) => [name, { ...fixtureCommand(name), ...settings }]));
}

/** Calls the fixture's tools one way or the other; the same client code either way. */
export interface Endpoint {
  client: RpcClient;
  callTool(name: string, args: Record<string, unknown>, timeoutMs?: number): Promise<ToolResult>;
  close(): Promise<void>;
}

export interface ToolResult {
  content: { type: string; text?: string }[];
  isError?: boolean;
}

/** A fresh workbench, initialized (not yet opened). */
export async function startWorkbench(
  target: Target,
  setup: BenchSetup,
  other: { configPath?: string; env?: Record<string, string> } = {},
): Promise<RpcClient> {
  const command = workbenchCommand(target, other.configPath ?? setup.configPath);
  const client = RpcClient.start({ ...command, cwd: setup.dir, env: { ...setup.workbenchEnv, ...other.env } });
  try {
    await client.initialize();
    return client;
  } catch (error) {
    await client.close();
    throw error;
  }
}

export async function openToolbox(
  client: RpcClient,
  toolbox: string,
  timeoutMs = 60_000,
  options: Record<string, unknown> = {},
): Promise<ToolResult> {
  const result = await client.request("tools/call", {
    name: "open_toolbox",
    arguments: { toolbox_name: toolbox, ...options },
  }, timeoutMs) as ToolResult;
  return checked(result, `open_toolbox ${toolbox}`);
}

/** The fixture behind a workbench with toolbox `one` open: every call goes through use_tool. */
export async function viaWorkbench(target: Target, setup: BenchSetup): Promise<Endpoint> {
  const client = await startWorkbench(target, setup);
  await openToolbox(client, ONE);
  return {
    client,
    async callTool(name, args, timeoutMs) {
      const tool = { toolbox: ONE, server: FIXTURE_SERVER, name };
      const params = { name: "use_tool", arguments: { tool, arguments: args } };
      return checked(await client.request("tools/call", params, timeoutMs) as ToolResult, name);
    },
    close: () => client.close(),
  };
}

/** The baseline: the same fixture, spawned by the bench client itself. */
export async function direct(command: Command = fixtureCommand(FIXTURE_SERVER)): Promise<Endpoint> {
  const client = RpcClient.start(command);
  try {
    await client.initialize();
  } catch (error) {
    await client.close();
    throw error;
  }
  return {
    client,
    async callTool(name, args, timeoutMs) {
      return checked(await client.request("tools/call", { name, arguments: args }, timeoutMs) as ToolResult, name);
    },
    close: () => client.close(),
  };
}

function checked(result: ToolResult, what: string): ToolResult {
  if (result.isError) throw new Error(`${what} failed: ${result.content[0]?.text}`);
  return result;
}

export function textOf(result: ToolResult): string {
  const text = result.content[0]?.text;
  if (typeof text !== "string") throw new Error(`expected text content, got ${JSON.stringify(result).slice(0, 200)}`);
  return text;
}
