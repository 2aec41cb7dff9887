/**
 * Issue 42's floor: what one extra hop costs when it does nothing but read and write the same
 * bytes. `bun scripts/pipe-floor.ts [--calls N]` calls the bench fixture's echo directly and
 * through a pass-through process (scripts/pipe-floor-relay.ts: stdin to the child's stdin, its
 * stdout to stdout, no parsing), alternately, three rounds: p50 of sequential calls and calls/s
 * with 64 in flight.
 */
import process from "node:process";
import { BUN, fixtureCommand, repoRoot } from "./bench/targets.ts";
import { RpcClient } from "./bench/rpc-client.ts";

const calls = Number(process.argv[process.argv.indexOf("--calls") + 1] || 2000);
const fixture = fixtureCommand("s1");
const sides = {
  direct: fixture,
  relay: { command: BUN, args: [`${repoRoot}/scripts/pipe-floor-relay.ts`, fixture.command, ...fixture.args], env: fixture.env },
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

for (let round = 1; round <= 3; round++) {
  for (const [name, command] of Object.entries(sides)) {
    const client = RpcClient.start(command);
    await client.initialize();
    const { p50, rate } = await measure(client);
    console.log(`round ${round} ${name}: echo p50 ${Math.round(p50)} µs, 64 in flight ${Math.round(rate)} calls/s`);
    await client.close();
  }
}
