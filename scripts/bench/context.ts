/**
 * Figure 7: what the workbench costs a model's context. Our tools/list and instructions (for the
 * bench's three toolboxes) are always there; the open_toolbox response of `mixed` (eight servers,
 * three of them the reference servers from npm) is weighed against those servers' own tools/list.
 */
import { Buffer } from "node:buffer";
import { type BenchSetup, direct, MIXED, openToolbox, startWorkbench, textOf } from "./setup.ts";
import type { Target } from "./targets.ts";

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
}

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

export async function measureContext(target: Target, setup: BenchSetup): Promise<ContextFigures> {
  const client = await startWorkbench(target, setup);
  let instructions: string;
  let toolsListBytes: number;
  let openToolboxBytes: number;
  try {
    instructions = client.initializeResult?.instructions ?? "";
    const listing = await client.request("tools/list", {}) as { tools: unknown[] };
    toolsListBytes = jsonBytes(listing.tools);
    openToolboxBytes = Buffer.byteLength(textOf(await openToolbox(client, MIXED)));
  } finally {
    await client.close();
  }
  const perServerBytes = await downstreamToolBytes(setup);
  const downstreamToolsBytes = Object.values(perServerBytes).reduce((sum, bytes) => sum + bytes.bytes, 0);
  const instructionsBytes = Buffer.byteLength(instructions);
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
  };
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
