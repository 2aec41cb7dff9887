/**
 * Figure 8 (issue 28): a chain task on the reference memory server, done the two ways a model can,
 * from the same harness: 20 entities written, the graph read back, the ports filtered and counted.
 * `use_tool`: one request per tool call, as a model without code mode makes them, every result read
 * whole. `run_code`: one script that does the same and returns the count. Counted for each: the
 * bytes that enter the model's context (the requests it writes plus the results it reads) and the
 * round trips. The run_code side is written to the contract (`run_code {toolbox, code}`,
 * the answer in `structuredContent.result`, `"codeMode": true` in the configuration) and is skipped,
 * saying why, while the workbench does not offer it.
 */
import { Buffer } from "node:buffer";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { referenceCommand, type Target, workbenchCommand } from "./targets.ts";
import { RpcClient } from "./rpc-client.ts";

export const CHAIN_TOOLBOX = "chain";
export const ENTITIES = 20;
const TIMEOUT_MS = 60_000;

/** One way of doing the task, and what it cost the model. */
export interface ChainRun {
  /** Ports counted: the task's answer (ENTITIES / 2). */
  answer: number;
  roundTrips: number;
  requestBytes: number;
  resultBytes: number;
  /** requestBytes + resultBytes: what enters the model's context. */
  contextBytes: number;
}

export interface ChainFigures {
  /** Each entity written by a call of its own, then the graph read: 21 round trips. */
  useTool: ChainRun;
  /** The 20 entities written by one create_entities call, then the graph read: the fewest use_tool can do. */
  useToolBatched: ChainRun;
  /** The open_toolbox result the model reads before any use_tool (not in the task's bytes). */
  openToolboxBytes: number;
  runCode: ChainRun | { skipped: string };
  /** 1 - runCode / useTool context bytes, when run_code ran. */
  savedFraction?: number;
}

/** The entities both ways write; the script of run_code builds the same ones itself (see SCRIPT). */
export function entity(i: number) {
  return {
    name: `city-${i}`,
    entityType: i % 2 === 0 ? "port" : "inland",
    observations: [`City ${i} was founded in year ${1200 + i * 7}`, `Population about ${(i + 1) * 1_000}`, "Listed in the bench's atlas"],
  };
}

/** The model's script: the same writes, the read, the filter and the count; only the count comes back. */
export const SCRIPT = `// One at a time: server-memory rewrites its whole file on each write, so concurrent writes lose entities.
for (let i = 0; i < ${ENTITIES}; i++) {
  await tools.memory.create_entities({ entities: [{
    name: \`city-\${i}\`,
    entityType: i % 2 === 0 ? "port" : "inland",
    observations: [\`City \${i} was founded in year \${1200 + i * 7}\`, \`Population about \${(i + 1) * 1000}\`, "Listed in the bench's atlas"],
  }] });
}
const graph = await tools.memory.read_graph({});
return graph.entities.filter((e) => e.entityType === "port").length;`;

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** A workbench with the memory server (a fresh graph) in toolbox `chain`; `codeMode` turns code mode on. */
async function startChainWorkbench(target: Target, dir: string, name: string, codeMode: boolean): Promise<RpcClient> {
  const memory = { ...referenceCommand("memory"), env: { MEMORY_FILE_PATH: `${dir}/${name}.jsonl` } };
  const config = { ...(codeMode && { codeMode: true }), toolboxes: { [CHAIN_TOOLBOX]: { description: "Chain task", mcpServers: { memory } } } };
  const configPath = `${dir}/${name}.json`;
  writeFileSync(configPath, JSON.stringify(config));
  const client = RpcClient.start({ ...workbenchCommand(target, configPath), cwd: dir, env: { WORKBENCH_CACHE_DIR: `${dir}/cache-${name}` } });
  try {
    await client.initialize(TIMEOUT_MS);
    return client;
  } catch (error) {
    await client.close();
    throw error;
  }
}

/** Counts what the model writes and reads, one tools/call at a time. */
class Ledger {
  roundTrips = 0;
  requestBytes = 0;
  resultBytes = 0;

  constructor(readonly client: RpcClient) {}

  async call(name: string, args: Record<string, unknown>): Promise<{ content?: { type: string; text?: string }[]; structuredContent?: unknown; isError?: boolean }> {
    const params = { name, arguments: args };
    const result = await this.client.request("tools/call", params, TIMEOUT_MS) as Awaited<ReturnType<Ledger["call"]>>;
    this.roundTrips++;
    this.requestBytes += bytes(params);
    this.resultBytes += bytes(result);
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content).slice(0, 500)}`);
    return result;
  }

  run(answer: number): ChainRun {
    return { answer, roundTrips: this.roundTrips, requestBytes: this.requestBytes, resultBytes: this.resultBytes, contextBytes: this.requestBytes + this.resultBytes };
  }
}

/** The use_tool way; `batched` writes the 20 entities in one call. Also the open_toolbox bytes. */
async function viaUseTool(target: Target, dir: string, batched: boolean): Promise<{ run: ChainRun; openToolboxBytes: number }> {
  const client = await startChainWorkbench(target, dir, batched ? "batched" : "use-tool", false);
  try {
    const opened = await client.request("tools/call", { name: "open_toolbox", arguments: { toolbox_name: CHAIN_TOOLBOX } }, TIMEOUT_MS);
    const ledger = new Ledger(client);
    const use = (name: string, args: Record<string, unknown>) =>
      ledger.call("use_tool", { tool: { toolbox: CHAIN_TOOLBOX, server: "memory", name }, arguments: args });
    const all = Array.from({ length: ENTITIES }, (_, i) => entity(i));
    if (batched) await use("create_entities", { entities: all });
    else for (const one of all) await use("create_entities", { entities: [one] });
    const read = await use("read_graph", {});
    // The model filters and counts in its head: it has read every entity to do so.
    const graph = JSON.parse(read.content?.find((item) => item.type === "text")?.text ?? "{}") as { entities?: { entityType: string }[] };
    const answer = (graph.entities ?? []).filter((e) => e.entityType === "port").length;
    return { run: ledger.run(answer), openToolboxBytes: bytes(opened) };
  } finally {
    await client.close();
  }
}

/** The run_code way, or why it was skipped. */
async function viaRunCode(target: Target, dir: string): Promise<ChainRun | { skipped: string }> {
  let client: RpcClient;
  try {
    client = await startChainWorkbench(target, dir, "run-code", true);
  } catch (error) {
    return { skipped: `the workbench did not start with "codeMode": true (${(error as Error).message.split("\n")[0].slice(0, 200)})` };
  }
  try {
    const listed = await client.request("tools/list", {}, TIMEOUT_MS) as { tools: { name: string }[] };
    if (!listed.tools.some((tool) => tool.name === "run_code")) {
      return { skipped: `tools/list has no run_code (it lists ${listed.tools.map((tool) => tool.name).join(", ")})` };
    }
    const ledger = new Ledger(client);
    const result = await ledger.call("run_code", { toolbox: CHAIN_TOOLBOX, code: SCRIPT });
    const answer = (result.structuredContent as { result?: unknown } | undefined)?.result;
    if (typeof answer !== "number") throw new Error(`run_code returned ${JSON.stringify(result).slice(0, 300)}`);
    return ledger.run(answer);
  } finally {
    await client.close();
  }
}

export async function measureChain(target: Target): Promise<ChainFigures> {
  const dir = mkdtempSync(`${tmpdir()}/workbench-chain-`);
  try {
    const { run: useTool, openToolboxBytes } = await viaUseTool(target, dir, false);
    const { run: useToolBatched } = await viaUseTool(target, dir, true);
    const runCode = await viaRunCode(target, dir);
    const savedFraction = "skipped" in runCode ? undefined : 1 - runCode.contextBytes / useTool.contextBytes;
    return { useTool, useToolBatched, openToolboxBytes, runCode, ...(savedFraction !== undefined && { savedFraction }) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The figure as a table, and the goals (at least 90% fewer bytes, one round trip). */
export function chainTable(figures: ChainFigures): string {
  const row = (label: string, run: ChainRun) =>
    `| ${label} | ${run.answer} | ${run.roundTrips} | ${run.requestBytes} | ${run.resultBytes} | ${run.contextBytes} |`;
  const lines = [
    `Chain task: ${ENTITIES} entities written to server-memory, the graph read back, the ports filtered and counted`,
    "",
    "| way | answer | round trips | request bytes | result bytes | context bytes |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
    row("use_tool, one call per entity", figures.useTool),
    row("use_tool, one create_entities for all", figures.useToolBatched),
  ];
  if ("skipped" in figures.runCode) lines.push("", `run_code: skipped: ${figures.runCode.skipped}`);
  else {
    lines.push(row("run_code", figures.runCode));
    const saved = (figures.savedFraction! * 100).toFixed(1);
    const right = figures.runCode.answer === figures.useTool.answer;
    const ok = right && figures.savedFraction! >= 0.9 && figures.runCode.roundTrips === 1;
    lines.push("", `${ok ? "PASS" : "MISS"} run_code: ${right ? "the same answer" : "ANOTHER ANSWER"}, ${saved}% fewer context bytes than use_tool (goal: at least 90%), ${figures.runCode.roundTrips} round trip (goal: 1)`);
  }
  lines.push("", `open_toolbox before the use_tool way: ${figures.openToolboxBytes} bytes (not counted above)`);
  return lines.join("\n");
}
