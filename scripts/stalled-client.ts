/**
 * Issue 33's figures: `bun scripts/stalled-client.ts [--target bin|bun|deno] [--calls 120000]
 * [--bytes 20]` writes that many `use_tool` calls to server-everything's echo without reading the
 * answers, prints the workbench's peak RSS while it waits and what each waiting call costs over the
 * RSS before, then reads and checks that every call was answered exactly once.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import process from "node:process";
import { stalledClient } from "./bench/stalled.ts";
import { referenceCommand, type Target, TARGETS, workbenchCommand } from "./bench/targets.ts";

const MiB = 1024 * 1024;

function flag(name: string, fallback: string): string {
  const index = process.argv.indexOf(name);
  return index < 0 ? fallback : process.argv[index + 1];
}

const target = flag("--target", "bin") as Target;
if (!TARGETS.includes(target)) throw new Error(`--target must be one of ${TARGETS.join(", ")}`);
const calls = Number(flag("--calls", "120000"));
const bytes = Number(flag("--bytes", "20"));
const dir = mkdtempSync(`${tmpdir()}/workbench-stalled-`);
try {
  const configPath = `${dir}/workbench-config.json`;
  writeFileSync(configPath, JSON.stringify({ toolboxes: { dev: { mcpServers: { everything: referenceCommand("everything") } } } }));
  const { command, args } = workbenchCommand(target, configPath);
  const run = await stalledClient({
    command,
    args,
    env: { ...process.env, WORKBENCH_CACHE_DIR: `${dir}/cache` } as Record<string, string>,
    cwd: dir,
    calls,
    text: (id) => `${id}:`.padEnd(bytes, "x"),
    tool: { toolbox: "dev", server: "everything", name: "echo" },
    argumentsFor: (message) => ({ message }),
    expected: (message) => `Echo: ${message}`,
  });
  const grown = run.peakBytes - run.baselineBytes;
  console.log(
    `${target}: ${calls} calls of ${bytes} bytes: RSS ${(run.baselineBytes / MiB).toFixed(1)} MiB before, peak ${(run.peakBytes / MiB).toFixed(1)} MiB ` +
      `(+${(grown / MiB).toFixed(1)} MiB, ${(grown / run.written).toFixed(0)} bytes per call written) while ${run.written} were written unread ` +
      `(the workbench reads at most its bound of calls in flight; the rest wait in the pipe); ` +
      `answered once ${run.answeredOnce}, missing ${run.missing.length}, twice ${run.twice.length}, wrong ${run.wrong.length}; drained in ${run.drainMs} ms`,
  );
  for (const line of run.wrong) console.log(`wrong: ${line}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
