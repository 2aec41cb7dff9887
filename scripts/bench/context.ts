/**
 * Figure 7: what the workbench costs a model's context. Our tools/list and instructions (for the
 * bench's three toolboxes) are always there; the open_toolbox response of `mixed` (eight servers,
 * three of them the reference servers from npm) is weighed against those servers' own tools/list.
 * Then the three reference servers alone (issue 14): their flat tool list against open_toolbox
 * full and summary, and the instructions before and after the catalog cache knows them.
 */
import { Buffer } from "node:buffer";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { type BenchSetup, direct, MIXED, openToolbox, startWorkbench, textOf } from "./setup.ts";
import type { Target } from "./targets.ts";
import type { RpcClient } from "./rpc-client.ts";

export interface ContextFigures {
  toolboxes: number;
  toolsListBytes: number;
  instructionsBytes: number;
  /** tools/list plus instructions: what every session pays before any toolbox is opened. */
  alwaysBytes: number;
  /** The text of the open_toolbox result for `mixed`. */
  openToolboxBytes: number;
  /** The eight servers' own tools arrays, each as compact JSON, summed. */
  downstreamToolsBytes: number;
  downstreamTools: number;
  openToolboxRatio: number;
  perServerBytes: Record<string, number>;
  reference: ReferenceContext;
}

/** everything, memory and filesystem in one toolbox of their own. */
export interface ReferenceContext {
  tools: number;
  /** Their own tools arrays, as a client without the workbench would get them, summed. */
  flatBytes: number;
  fullBytes: number;
  summaryBytes: number;
  /** Instructions on a first start, and on the next one when the cache gives tool counts. */
  instructionsBytes: number;
  instructionsWithCountsBytes: number;
  /** The servers' own instructions in the open_toolbox result: the same bytes a direct client gets. */
  serverInstructionsBytes: number;
  /** Tool listings compared, without the servers' instructions that both sides carry. */
  fullRatio: number;
  summaryRatio: number;
}

export const REFERENCE_SERVERS = ["everything", "memory", "filesystem"];
const REFERENCE = "reference";
const CACHE_WAIT_MS = 10_000;

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** An open_toolbox result's bytes without the servers' instructions (issue 15), which a direct client reads too. */
function listingBytes(text: string): number {
  const { instructions: _, ...listing } = JSON.parse(text);
  return jsonBytes(listing);
}

function serverInstructionsBytes(text: string): number {
  const { instructions } = JSON.parse(text) as { instructions?: Record<string, string> };
  return Object.values(instructions ?? {}).reduce((sum, given) => sum + Buffer.byteLength(given), 0);
}

export async function measureContext(target: Target, setup: BenchSetup): Promise<ContextFigures> {
  const client = await startWorkbench(target, setup);
  let instructions: string;
  let toolsListBytes: number;
  let openToolboxBytes: number;
  try {
    instructions = client.initializeResult?.instructions ?? "";
    const listing = await client.request("tools/list", {}) as { tools: unknown[] };
    toolsListBytes = jsonBytes(listing.tools);
    openToolboxBytes = listingBytes(textOf(await openToolbox(client, MIXED)));
  } finally {
    await client.close();
  }
  const perServerBytes = await downstreamToolBytes(setup);
  const downstreamToolsBytes = Object.values(perServerBytes).reduce((sum, bytes) => sum + bytes.bytes, 0);
  const instructionsBytes = Buffer.byteLength(instructions);
  const flat = REFERENCE_SERVERS.map((name) => perServerBytes[name]);
  return {
    toolboxes: 3,
    toolsListBytes,
    instructionsBytes,
    alwaysBytes: toolsListBytes + instructionsBytes,
    openToolboxBytes,
    downstreamToolsBytes,
    downstreamTools: Object.values(perServerBytes).reduce((sum, server) => sum + server.tools, 0),
    openToolboxRatio: openToolboxBytes / downstreamToolsBytes,
    perServerBytes: Object.fromEntries(Object.entries(perServerBytes).map(([name, server]) => [name, server.bytes])),
    reference: await measureReference(target, setup, {
      bytes: flat.reduce((sum, server) => sum + server.bytes, 0),
      tools: flat.reduce((sum, server) => sum + server.tools, 0),
    }),
  };
}

/** The reference toolbox on a fresh cache (full, summary, instructions), then the instructions again. */
async function measureReference(
  target: Target,
  setup: BenchSetup,
  flat: { bytes: number; tools: number },
): Promise<ReferenceContext> {
  const servers = Object.fromEntries(REFERENCE_SERVERS.map((name) => [name, setup.mixedServers[name]]));
  const configPath = `${setup.dir}/reference-config.json`;
  writeFileSync(configPath, JSON.stringify({ toolboxes: { [REFERENCE]: { description: "Reference servers", mcpServers: servers } } }));
  const cacheDir = `${setup.dir}/reference-cache`;
  const other = { configPath, env: { WORKBENCH_CACHE_DIR: cacheDir } };
  const opened = await withClient(await startWorkbench(target, setup, other), async (client) => ({
    instructions: client.initializeResult?.instructions ?? "",
    full: textOf(await openToolbox(client, REFERENCE)),
    summary: textOf(await openToolbox(client, REFERENCE, undefined, { detail: "summary" })),
  }));
  await untilFiles(cacheDir, REFERENCE_SERVERS.length);
  const warm = await withClient(await startWorkbench(target, setup, other), (client) =>
    Promise.resolve(client.initializeResult?.instructions ?? ""));
  const fullBytes = listingBytes(opened.full);
  const summaryBytes = listingBytes(opened.summary);
  return {
    tools: flat.tools,
    flatBytes: flat.bytes,
    fullBytes,
    summaryBytes,
    instructionsBytes: Buffer.byteLength(opened.instructions),
    instructionsWithCountsBytes: Buffer.byteLength(warm),
    serverInstructionsBytes: serverInstructionsBytes(opened.full),
    fullRatio: fullBytes / flat.bytes,
    summaryRatio: summaryBytes / flat.bytes,
  };
}

async function withClient<T>(client: RpcClient, fn: (client: RpcClient) => Promise<T>): Promise<T> {
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

/** The cache is written in the background: wait (bounded) until it holds a file per server. */
async function untilFiles(dir: string, count: number): Promise<void> {
  const deadline = Date.now() + CACHE_WAIT_MS;
  while (!existsSync(dir) || readdirSync(dir).filter((name) => name.endsWith(".json")).length < count) {
    if (Date.now() > deadline) throw new Error(`the catalog cache in ${dir} did not get ${count} files`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Each server of `mixed`, started on its own: the bytes and count of its tools. */
async function downstreamToolBytes(setup: BenchSetup): Promise<Record<string, { bytes: number; tools: number }>> {
  const sizes: Record<string, { bytes: number; tools: number }> = {};
  for (const [name, command] of Object.entries(setup.mixedServers)) {
    const server = await direct(command);
    try {
      const listing = await server.client.request("tools/list", {}) as { tools: unknown[] };
      sizes[name] = { bytes: jsonBytes(listing.tools), tools: listing.tools.length };
    } finally {
      await server.close();
    }
  }
  return sizes;
}
