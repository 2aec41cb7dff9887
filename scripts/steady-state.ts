/**
 * Issue 42: the relay at its steady state, against its floors, in one sitting. `bun
 * scripts/steady-state.ts [EXE...] [--blocks N]` measures, one side after the other: a pass-through
 * that copies bytes (scripts/pipe-floor-relay.ts), a relay that parses each message and writes it
 * on with no checks (scripts/http-floor.ts over stdio), and each workbench executable (default
 * dist/mcp-workbench) with the bench's toolbox `one` open. Each side gets a fresh direct client of
 * the same fixture beside it, and the two take turns: 6 rounds of 3,000 sequential echoes (p50
 * added to direct's), then N blocks (default 16) of 5,000 echoes with 64 in flight. The bench's
 * figure 4 runs 4 rounds after 200 calls, while the JIT is still compiling (a fifth of the
 * workbench's CPU then); here the figures are the medians of the second half of the blocks, when
 * both sides are warm. CPU per call is the side's utime + stime (/proc, so 2 µs steps at 5,000
 * calls). Linux only.
 */
import { loadavg } from "node:os";
import process from "node:process";
import { createSetup, ONE, openToolbox } from "./bench/setup.ts";
import { BUN, fixtureCommand, repoRoot } from "./bench/targets.ts";
import { type Command, RpcClient } from "./bench/rpc-client.ts";
import { cpuSeconds } from "./bench/cpu-time.ts";
import { median } from "./bench/stats.ts";

const argv = process.argv.slice(2);
const blocksAt = argv.indexOf("--blocks");
const blocks = blocksAt >= 0 ? Number(argv[blocksAt + 1]) : 16;
const executables = argv.filter((arg, index) => !arg.startsWith("--") && (blocksAt < 0 || index !== blocksAt + 1));
const BLOCK = 5_000;
const SEQUENTIAL = 3_000;
const IN_FLIGHT = 64;

const setup = createSetup();
const fixture = fixtureCommand("s1");
const echo = { name: "echo", arguments: { text: "hello from the bench" } };
const viaUseTool = { name: "use_tool", arguments: { tool: { toolbox: ONE, server: "s1", name: "echo" }, arguments: echo.arguments } };

interface Side {
  name: string;
  command: Command;
  /** The workbench and the parsing relay take use_tool; the byte relay passes the echo on as it is. */
  params: typeof echo | typeof viaUseTool;
}

const sides: Side[] = [
  { name: "byte relay", command: { command: BUN, args: [`${repoRoot}/scripts/pipe-floor-relay.ts`, fixture.command, ...fixture.args], env: fixture.env }, params: echo },
  { name: "parsing relay", command: { command: BUN, args: [`${repoRoot}/scripts/http-floor.ts`, "--config", setup.configPath] }, params: viaUseTool },
  ...(executables.length ? executables : [`${repoRoot}/dist/mcp-workbench`]).map((exe) => ({
    name: exe,
    command: { command: exe, args: ["--config", setup.configPath], env: setup.workbenchEnv },
    params: viaUseTool,
  })),
];

async function sequentialP50(client: RpcClient, params: unknown): Promise<number> {
  const times: number[] = [];
  for (let call = 0; call < SEQUENTIAL; call++) {
    const began = performance.now();
    await client.request("tools/call", params, 30_000);
    times.push((performance.now() - began) * 1000);
  }
  return median(times);
}

/** Calls per second and CPU µs per call of one block with IN_FLIGHT outstanding. */
async function block(client: RpcClient, params: unknown): Promise<{ rate: number; cpuUs: number }> {
  let sent = 0;
  const cpuBefore = cpuSeconds(client.pid).total;
  const began = performance.now();
  const worker = async () => {
    while (sent < BLOCK) {
      sent++;
      await client.request("tools/call", params, 30_000);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const seconds = (performance.now() - began) / 1000;
  return { rate: BLOCK / seconds, cpuUs: (cpuSeconds(client.pid).total - cpuBefore) / BLOCK * 1e6 };
}

const load = () => loadavg().map((n) => n.toFixed(2)).join(" ");
console.log(`load average at the start ${load()}`);
const rows: string[] = [];
try {
  for (const side of sides) {
    const direct = RpcClient.start({ ...fixture, cwd: setup.dir });
    const relay = RpcClient.start({ ...side.command, cwd: setup.dir });
    try {
      await Promise.all([direct.initialize(), relay.initialize()]);
      if (side.params === viaUseTool) await openToolbox(relay, ONE);
      const added: number[] = [];
      for (let round = 0; round < 6; round++) added.push(await sequentialP50(relay, side.params) - await sequentialP50(direct, echo));
      const shares: number[] = [], rates: number[] = [], directRates: number[] = [], cpu: number[] = [];
      for (let index = 0; index < blocks; index++) {
        const directBlock = await block(direct, echo);
        const relayBlock = await block(relay, side.params);
        if (index < blocks / 2) continue;
        directRates.push(directBlock.rate);
        rates.push(relayBlock.rate);
        shares.push(relayBlock.rate / directBlock.rate);
        cpu.push(relayBlock.cpuUs);
      }
      rows.push(`| ${side.name} | +${Math.round(median(added))} µs (+${Math.round(Math.min(...added))} to +${Math.round(Math.max(...added))}) | ` +
        `${Math.round(median(rates)).toLocaleString("en")} | ${Math.round(median(directRates)).toLocaleString("en")} | ` +
        `${(median(shares) * 100).toFixed(1)}% (${(Math.min(...shares) * 100).toFixed(1)}–${(Math.max(...shares) * 100).toFixed(1)}) | ${median(cpu).toFixed(1)} |`);
      console.log(`${side.name} done (load average ${load()})`);
    } finally {
      await Promise.allSettled([direct.close(), relay.close()]);
    }
  }
} finally {
  setup.cleanup();
}
console.log("\n| side | sequential echo p50 added to direct's | 64 in flight, calls/s | direct beside it, calls/s | share of direct | CPU per call, µs |");
console.log("| --- | --- | --- | --- | --- | --- |");
for (const row of rows) console.log(row);
