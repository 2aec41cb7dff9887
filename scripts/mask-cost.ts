/**
 * What masking a server's secrets in what it sends back costs (issue 37 §7), on a 1 MiB tool
 * result. In process: maskMessage on the raw result as the stdio link gives it (no secret
 * configured; a secret configured but absent; a secret present) and on the same result parsed (as
 * the HTTP link gives it). End to end: the p50 of use_tool of a 1 MiB result over real stdio, from
 * a server with an env secret in the result, one with a secret the result does not hold, and one
 * without any, interleaved.
 * Usage: bun scripts/mask-cost.ts [--runs N]
 */
import process from "node:process";
import { maskMessage } from "../src/address/mask-message.ts";
import { Redactor } from "../src/address/redact.ts";
import { lazyJsonObject } from "../src/transport/raw-json.ts";
import { removeTempDirs, startWorkbench } from "../tests/helpers/workbench.ts";
import { fixtureServer } from "../tests/helpers/runtime.ts";
import { call } from "../tests/helpers/toolbox.ts";
import { median, round } from "./bench/stats.ts";

const flag = process.argv.indexOf("--runs");
const RUNS = flag > 0 ? Number(process.argv[flag + 1]) : 40;
const SECRET = "sk-env-5f1c0a9e7d3b2a";

const KiB512 = 512 * 1024;
/** Filler a secret's first byte never matches, and prose full of it ("s"): the byte search's best and worst. */
const FILLERS = { x: "x".repeat(KiB512), prose: "so sessions start slowly; ".repeat(KiB512 / 26) };
const bytesWith = (filler: string, said: string) => new TextEncoder().encode(JSON.stringify({ content: [{ type: "text", text: `${filler}${said}${filler}` }] }));

function timed(make: () => object, redactor: Redactor): number {
  const samples: number[] = [];
  for (let i = 0; i < RUNS * 5; i++) {
    const message = { jsonrpc: "2.0", id: i, result: make() };
    const started = performance.now();
    maskMessage(message, redactor);
    samples.push(performance.now() - started);
  }
  return round(median(samples), 3);
}

const none = new Redactor([]);
const one = new Redactor([SECRET]);
const inProcess: Record<string, number> = {};
for (const [name, filler] of Object.entries(FILLERS)) {
  const absent = bytesWith(filler, "the key is elsewhere");
  const present = bytesWith(filler, `the key is ${SECRET}`);
  const parsed = (bytes: Uint8Array) => () => JSON.parse(new TextDecoder().decode(bytes));
  inProcess[`${name}: raw, no secret configured`] = timed(() => lazyJsonObject([absent]), none);
  inProcess[`${name}: raw, secret configured, absent`] = timed(() => lazyJsonObject([absent]), one);
  inProcess[`${name}: raw, secret present`] = timed(() => lazyJsonObject([present]), one);
  inProcess[`${name}: parsed, no secret configured`] = timed(parsed(absent), none);
  inProcess[`${name}: parsed, secret configured, absent`] = timed(parsed(absent), one);
  inProcess[`${name}: parsed, secret present`] = timed(parsed(present), one);
}
console.log(`maskMessage on a 1 MiB result (one text content), median ms of ${RUNS * 5}:`);
for (const [what, ms] of Object.entries(inProcess)) console.log(`  ${what.padEnd(44)} ${ms}`);

const server = (env: Record<string, string>) => fixtureServer("leaky-server.ts", { env });
const session = await startWorkbench({
  maxResultTokens: 0,
  toolboxes: {
    dev: {
      mcpServers: {
        secret: server({ LEAK_SECRET: SECRET }),
        // A secret configured (OTHER_KEY) that the result does not hold ("nothing" is too short to be one).
        absent: server({ LEAK_SECRET: "nothing", OTHER_KEY: SECRET }),
        plain: server({}),
      },
    },
  },
});
try {
  await call(session, "open_toolbox", { toolbox_name: "dev" });
  const times: Record<string, number[]> = { secret: [], absent: [], plain: [] };
  for (let i = 0; i < RUNS + 3; i++) {
    for (const name of ["plain", "absent", "secret"]) {
      const started = performance.now();
      const result = await call(session, "use_tool", { tool: { toolbox: "dev", server: name, name: "leak_big" }, arguments: {} });
      if (result.isError) throw new Error(JSON.stringify(result).slice(0, 300));
      if (i >= 3) times[name].push(performance.now() - started);
    }
  }
  console.log(`use_tool of a 1 MiB result over stdio, p50 ms of ${RUNS} (after 3 warm-up):`);
  console.log(`  env secret, in the result (masked)       ${round(median(times.secret))}`);
  console.log(`  env secret, not in the result            ${round(median(times.absent))}`);
  console.log(`  no secret configured (a flag test)       ${round(median(times.plain))}`);
} finally {
  await session.close();
  removeTempDirs();
}
