/**
 * Issue 42's floor: what one extra hop costs when it does nothing but read and write the same
 * bytes. `bun scripts/pipe-floor.ts [--calls N]` calls the bench fixture's echo directly and
 * through a pass-through process (scripts/pipe-floor-relay.ts: stdin to the child's stdin, its
 * stdout to stdout, no parsing), alternately, three rounds: p50 of sequential calls and calls/s
 * with 64 in flight. With `--blob`, instead: the hop's peak RSS after relaying 1, 8 and 32 MiB
 * results, and 32 MiB through it against direct (the median of 5 pairs per round): the floor of a
 * relay that passes a large result on as it reads it. With `--blob --whole`, the same for a hop that
 * holds each of the server's lines whole before writing it (unparsed): the floor of a relay that
 * checks a message before the client sees any of it.
 */
import process from "node:process";
import { BUN, fixtureCommand, repoRoot } from "./bench/targets.ts";
import { RpcClient } from "./bench/rpc-client.ts";
import { residentBytes } from "./bench/memory.ts";
import { median, MiB } from "./bench/stats.ts";

// Not argv[indexOf + 1] alone: without --calls that is argv[0], the runtime's path (NaN calls).
const callsAt = process.argv.indexOf("--calls");
const calls = callsAt >= 0 ? Number(process.argv[callsAt + 1]) : 2000;
const fixture = fixtureCommand("s1");
const sides = {
  direct: fixture,
  relay: {
    command: BUN,
    args: [`${repoRoot}/scripts/pipe-floor-relay.ts`, ...(process.argv.includes("--whole") ? ["--whole"] : []), fixture.command, ...fixture.args],
    env: fixture.env,
  },
};
const params = { name: "echo", arguments: { text: "hello" } };

async function measure(client: RpcClient): Promise<{ p50: number; rate: number }> {
  for (let i = 0; i < 200; i++) await client.request("tools/call", params);
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const began = performance.now();
    await client.request("tools/call", params);
    times.push((performance.now() - began) * 1000);
  }
  times.sort((a, b) => a - b);
  let sent = 0;
  const began = performance.now();
  const worker = async () => {
    while (sent < calls * 5) {
      sent++;
      await client.request("tools/call", params);
    }
  };
  await Promise.all(Array.from({ length: 64 }, worker));
  return { p50: times[Math.floor(times.length / 2)], rate: (calls * 5) / ((performance.now() - began) / 1000) };
}

/** ms for one blob of `bytes`, checked. */
async function blob(client: RpcClient, bytes: number): Promise<number> {
  const began = performance.now();
  const result = await client.request("tools/call", { name: "blob", arguments: { bytes } }, 120_000) as { content: { text: string }[] };
  if (result.content[0].text.length !== bytes) throw new Error(`A blob of ${bytes} bytes came back with ${result.content[0].text.length}`);
  return performance.now() - began;
}

if (process.argv.includes("--blob")) {
  const direct = RpcClient.start(sides.direct);
  await direct.initialize();
  for (let round = 1; round <= 3; round++) {
    const relay = RpcClient.start(sides.relay);
    await relay.initialize();
    const before = residentBytes(relay.pid) / MiB;
    for (const mib of [1, 8, 32]) await blob(relay, mib * MiB);
    const peak = residentBytes(relay.pid, "VmHWM") / MiB;
    const ratios: number[] = [];
    for (let pair = 0; pair < 5; pair++) {
      const directMs = await blob(direct, 32 * MiB);
      ratios.push(await blob(relay, 32 * MiB) / directMs);
    }
    console.log(`round ${round} relay: RSS ${before.toFixed(1)} MiB before, peak ${peak.toFixed(1)} MiB after 1, 8 and 32 MiB; 32 MiB ${median(ratios).toFixed(2)}x direct`);
    await relay.close();
  }
  await direct.close();
  process.exit(0);
}

for (let round = 1; round <= 3; round++) {
  for (const [name, command] of Object.entries(sides)) {
    const client = RpcClient.start(command);
    await client.initialize();
    const { p50, rate } = await measure(client);
    console.log(`round ${round} ${name}: echo p50 ${Math.round(p50)} µs, 64 in flight ${Math.round(rate)} calls/s`);
    await client.close();
  }
}
