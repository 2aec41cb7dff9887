/**
 * Issue 49: what a member's own secret costs a call. `serve --http` (from source, under Bun) in
 * front of our HTTP fixture, one member with a bearer token, `use_tool` echo one call at a time; the
 * fixture's header is either a value written in the file (`static`) or the member's
 * `${client:API_TOKEN}` (`member`), served alternately round by round so that a noisy moment falls
 * on both. With `--before DIR` (another checkout, e.g. `git worktree add /tmp/before c446b06`) the
 * member side is also served from that tree's source (`before`): what a change cost the call.
 * Prints each side's p50 and p90 per round and their medians.
 *
 *   bun scripts/member-calls.ts [--rounds 6] [--calls 2000] [--before DIR]
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { performance } from "node:perf_hooks";
import process from "node:process";
import { startHttpFixture } from "../tests/helpers/http-fixture.ts";
import { httpClient, startServe } from "./bench/serve.ts";
import { BUN } from "./bench/targets.ts";
import { median, percentile } from "./bench/stats.ts";

const argv = process.argv.slice(2);
const option = (name: string, fallback: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback);
const ROUNDS = option("--rounds", 6);
const BEFORE = argv.includes("--before") ? argv[argv.indexOf("--before") + 1] : undefined;
const CALLS = option("--calls", 2000);
const WARM_UP = 500;
const TOKEN = "alice-bench-token-0123456789";
const VALUE = "alice-member-value-0123456789";
const ECHO = { tool: { toolbox: "dev", server: "remote", name: "echo" }, arguments: { text: "hello from the bench" } };

const dir = mkdtempSync(`${tmpdir()}/member-calls-`);
const fixture = await startHttpFixture();

/** The configuration of one side: the header as written, or the member's secret. */
function configOf(side: "static" | "member"): string {
  const header = side === "static" ? VALUE : "${client:API_TOKEN}";
  const secrets = side === "member" ? { secrets: { API_TOKEN: VALUE } } : {};
  const path = `${dir}/${side}.json`;
  writeFileSync(path, JSON.stringify({
    toolboxes: { dev: { mcpServers: { remote: { type: "http", url: fixture.url("/mcp"), headers: { "X-Member-Token": header } } } } },
    serve: { clients: { alice: { token: "${BENCH_TOKEN}", toolboxes: ["*"], ...secrets } } },
  }));
  return path;
}

async function side(configPath: string, tree = `${import.meta.dirname}/..`): Promise<{ p50: number; p90: number }> {
  const served = await startServe({ command: BUN, args: [`${tree}/src/main.ts`] }, configPath, { BENCH_TOKEN: TOKEN }, dir);
  const client = await httpClient(served.url, TOKEN);
  try {
    await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } });
    const call = async () => {
      const result = await client.callTool({ name: "use_tool", arguments: ECHO });
      if (result.isError) throw new Error(`echo failed: ${JSON.stringify(result).slice(0, 200)}`);
    };
    for (let index = 0; index < WARM_UP; index++) await call();
    const times: number[] = [];
    for (let index = 0; index < CALLS; index++) {
      const began = performance.now();
      await call();
      times.push((performance.now() - began) * 1000);
    }
    return { p50: percentile(times, 50), p90: percentile(times, 90) };
  } finally {
    await client.end();
    await served.stop();
  }
}

type Side = "static" | "member" | "before";
const SIDES: Side[] = BEFORE ? ["static", "member", "before"] : ["static", "member"];
const results: Record<Side, { p50: number; p90: number }[]> = { static: [], member: [], before: [] };
try {
  const paths = { static: configOf("static"), member: configOf("member"), before: configOf("member") };
  for (let round = 0; round < ROUNDS; round++) {
    // Each side goes first in turn.
    const order = SIDES.map((_, at) => SIDES[(at + round) % SIDES.length]);
    for (const which of order) results[which].push(await side(paths[which], which === "before" ? BEFORE : undefined));
    const line = order.map((which) => `${which} p50 ${results[which].at(-1)!.p50.toFixed(0)} µs p90 ${results[which].at(-1)!.p90.toFixed(0)} µs`);
    console.log(`round ${round + 1}: ${line.join("; ")}`);
  }
  for (const which of SIDES) {
    const p50s = results[which].map((one) => one.p50);
    console.log(`${which}: median p50 ${median(p50s).toFixed(0)} µs (range ${Math.min(...p50s).toFixed(0)}–${Math.max(...p50s).toFixed(0)}), ` +
      `median p90 ${median(results[which].map((one) => one.p90)).toFixed(0)} µs`);
  }
  const ratio = median(results.member.map((one) => one.p50)) / median(results.static.map((one) => one.p50)) - 1;
  console.log(`member against static, p50: ${(ratio * 100).toFixed(1)}%`);
  if (BEFORE) {
    const change = median(results.member.map((one) => one.p50)) / median(results.before.map((one) => one.p50)) - 1;
    console.log(`member against before, p50: ${(change * 100).toFixed(1)}%`);
  }
} finally {
  await fixture.stop();
  rmSync(dir, { recursive: true, force: true });
}
