/**
 * What each MCP SDK costs an executable (issue 22: stay on SDK 1.32 with our own era layer, or move
 * to SDK v2): two small programs that import the SDK's Server and Client, one from
 * `@modelcontextprotocol/sdk` 1.32, one from `@modelcontextprotocol/server` and `/client` 2.4,
 * each built with `bun build --compile --minify` and run RUNS times. Prints the executables' size,
 * the median RSS once both classes are made, and the median time from process start to then.
 * `bun scripts/sdk-footprint.ts`
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import process from "node:process";
import { repoRoot } from "./bench/targets.ts";
import { median } from "./bench/stats.ts";

const RUNS = 15;
const PROBES = {
  "sdk 1.32": [`import { Server } from "@modelcontextprotocol/sdk/server/index.js";`, `import { Client } from "@modelcontextprotocol/sdk/client/index.js";`],
  "sdk v2 2.4": [`import { Server } from "@modelcontextprotocol/server";`, `import { Client } from "@modelcontextprotocol/client";`],
};
const BODY = `
const server = new Server({ name: "probe", version: "1" }, { capabilities: { tools: {} } });
const client = new Client({ name: "probe", version: "1" });
const status = await Bun.file("/proc/self/status").text();
const rss = Number(/VmRSS:\\s+(\\d+)/.exec(status)?.[1] ?? "0") / 1024;
console.log(JSON.stringify({ rss, ms: performance.now(), made: !!server && !!client }));
`;

const dir = mkdtempSync(`${tmpdir()}/mcp-workbench-sdk-footprint-`);
try {
  for (const [name, imports] of Object.entries(PROBES)) {
    const source = `${repoRoot}/.sdk-footprint-${name.replace(/\W+/g, "-")}.ts`;
    const binary = `${dir}/${name.replace(/\W+/g, "-")}`;
    writeFileSync(source, `${imports.join("\n")}\n${BODY}`);
    try {
      execFileSync(process.execPath, ["build", "--compile", "--minify", source, "--outfile", binary], { stdio: "ignore" });
    } finally {
      rmSync(source, { force: true });
    }
    const runs = Array.from({ length: RUNS }, () => JSON.parse(execFileSync(binary, { encoding: "utf8" })) as { rss: number; ms: number });
    const size = statSync(binary).size / 1024 / 1024;
    const rss = median(runs.map((run) => run.rss));
    const ms = median(runs.map((run) => run.ms));
    console.log(`${name}: executable ${size.toFixed(1)} MiB, RSS ${rss.toFixed(1)} MiB, ready in ${ms.toFixed(1)} ms (median of ${RUNS})`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
