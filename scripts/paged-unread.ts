/**
 * Issue 54's figures: `bun scripts/paged-unread.ts [--target bin|bun|deno] [--calls 300]
 * [--mib 1] [--stall-ms 12000] [--max-result-tokens N] [--runs 3] [--bin PATH] [--nice N]`
 * opens a toolbox with one stdio echo server (tests/fixtures/bench-server.ts), stops reading,
 * writes the calls at once, waits, and prints the workbench's peak RSS, whether each call was
 * answered once, and how many results read_result reads to the end.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import process from "node:process";
import { pagedUnread } from "./bench/paged-unread.ts";
import { BUN, repoRoot, type Target, TARGETS, workbenchCommand } from "./bench/targets.ts";

const MiB = 1024 * 1024;

function flag(name: string, fallback: string): string {
  const index = process.argv.indexOf(name);
  return index < 0 ? fallback : process.argv[index + 1];
}

const target = flag("--target", "bin") as Target;
if (!TARGETS.includes(target)) throw new Error(`--target must be one of ${TARGETS.join(", ")}`);
const calls = Number(flag("--calls", "300"));
const textChars = Math.round(Number(flag("--mib", "1")) * MiB);
const stallMs = Number(flag("--stall-ms", "12000"));
const limit = process.argv.includes("--max-result-tokens") ? Number(flag("--max-result-tokens", "0")) : undefined;
const runs = Number(flag("--runs", "1"));

for (let run = 1; run <= runs; run++) {
  const dir = mkdtempSync(`${tmpdir()}/workbench-paged-`);
  try {
    const configPath = `${dir}/workbench-config.json`;
    const echo = {
      command: BUN,
      args: [`${repoRoot}/tests/fixtures/bench-server.ts`],
      env: { BENCH_LABEL: "echo" },
      ...(limit === undefined ? {} : { maxResultTokens: limit }),
    };
    writeFileSync(configPath, JSON.stringify({ toolboxes: { dev: { mcpServers: { echo } } } }));
    // --bin PATH: another build of the executable (a before and an after side by side).
    const bin = flag("--bin", "");
    const workbench = bin ? { command: bin, args: ["--config", configPath] } : workbenchCommand(target, configPath);
    // --nice N: run the workbench (and its server) at that niceness, as on a quiet machine.
    const nice = flag("--nice", "");
    const { command, args } = nice ? { command: "nice", args: ["-n", nice, workbench.command, ...workbench.args] } : workbench;
    const result = await pagedUnread({
      command,
      args,
      env: { ...process.env, WORKBENCH_CACHE_DIR: `${dir}/cache` } as Record<string, string>,
      cwd: dir,
      calls,
      textChars,
      stallMs,
      expected: (text) => text,
      toolbox: "dev",
      server: "echo",
      paged: limit !== 0,
    });
    console.log(
      `${target} run ${run}: ${calls} calls of ${textChars / MiB} MiB, maxResultTokens ${limit ?? "default"}: ` +
        `RSS ${(result.baselineBytes / MiB).toFixed(0)} MiB before, peak ${(result.peakBytes / MiB).toFixed(0)} MiB; ` +
        `answered once ${result.answeredOnce}, missing ${result.missing.length}, twice ${result.twice.length}, wrong ${result.wrong.length}; ` +
        `paged ${result.paged}, read whole with read_result ${result.readWhole}, gone ${result.gone}, read wrong ${result.readWrong.length}; ` +
        `drained in ${result.drainMs} ms`,
    );
    for (const line of [...result.wrong, ...result.readWrong]) console.log(`wrong: ${line}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
