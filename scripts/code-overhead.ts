/**
 * Code mode's overhead (issue 28): the p50 of run_code with a script that makes one call, against
 * use_tool of the same call, over real stdio with the SDK client and our fixture server; and the
 * first run_code (the sandbox worker starts). The workbench runs from source, or the executable
 * WORKBENCH_BIN names. Usage: bun scripts/code-overhead.ts [--runs N]
 */
import process from "node:process";
import { removeTempDirs, startWorkbench } from "../tests/helpers/workbench.ts";
import { call, fx } from "../tests/helpers/toolbox.ts";
import { median, percentile, round } from "./bench/stats.ts";

const flag = process.argv.indexOf("--runs");
const RUNS = flag > 0 ? Number(process.argv[flag + 1]) : 200;

const session = await startWorkbench({ codeMode: true, toolboxes: { dev: { mcpServers: { s: fx("s") } } } });
try {
  await call(session, "open_toolbox", { toolbox_name: "dev" });
  const useTool = () => call(session, "use_tool", { tool: { toolbox: "dev", server: "s", name: "echo" }, arguments: { text: "hi" } });
  const runCode = () => call(session, "run_code", { toolbox: "dev", code: `return await tools.s.echo({ text: "hi" });` });
  let started = performance.now();
  const first = await runCode();
  const firstMs = performance.now() - started;
  if (first.isError) throw new Error(JSON.stringify(first));
  const times = { use_tool: [] as number[], run_code: [] as number[] };
  // Interleaved, so that a busy moment of the machine falls on both alike.
  for (let i = 0; i < RUNS; i++) {
    for (const [name, fn] of [["use_tool", useTool], ["run_code", runCode]] as const) {
      started = performance.now();
      await fn();
      times[name].push(performance.now() - started);
    }
  }
  const row = (samples: number[]) => ({ p50: round(median(samples)), p90: round(percentile(samples, 90)) });
  const result = {
    runs: RUNS,
    first_run_code_ms: round(firstMs),
    use_tool_ms: row(times.use_tool),
    run_code_ms: row(times.run_code),
    overhead_p50_ms: round(median(times.run_code) - median(times.use_tool)),
  };
  console.log(JSON.stringify(result, null, 2));
} finally {
  await session.close();
  removeTempDirs();
}
