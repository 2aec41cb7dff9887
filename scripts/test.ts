/**
 * The whole suite: type checks, then the same tests under Bun and under Deno. Fails unless both
 * runtimes pass and ran the same number of tests. Run with `npm test` (or `bun scripts/test.ts`).
 * Extra arguments (files or folders) narrow the run.
 */
import { spawnSync } from "node:child_process";
import process from "node:process";

const root = new URL("..", import.meta.url).pathname;
const bin = (name: string) => `${root}node_modules/.bin/${name}`;
const only = process.argv.slice(2);
const env = { ...process.env, NO_COLOR: "1" };

function run(title: string, command: string, args: string[]): string {
  console.log(`\n=== ${title}: ${[command.replace(root, ""), ...args].join(" ")}`);
  const result = spawnSync(command, args, { cwd: root, env, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`;
  process.stdout.write(output);
  if (result.status !== 0) {
    console.error(`\n${title} failed (exit ${result.status ?? result.signal})`);
    process.exit(1);
  }
  return output;
}

function count(output: string, pattern: RegExp, runtime: string): number {
  const match = output.match(pattern);
  if (!match) {
    console.error(`Could not read the test count of ${runtime}`);
    process.exit(1);
  }
  return Number(match[1]);
}

run("deno check", bin("deno"), ["check", "src/", "tests/", "scripts/"]);
run("tsc (Bun types)", bin("tsc"), ["-p", "tsconfig.json"]);
// Tests start real processes; Bun's default of 5 s per test is too tight for a loaded machine.
const bunOutput = run("bun test", bin("bun"), ["test", "--timeout", "60000", ...only]);
const denoOutput = run("deno test", bin("deno"), ["test", "--allow-all", ...(only.length ? only : ["tests/"])]);

const bunPassed = count(bunOutput, /^\s*(\d+) pass$/m, "bun");
const denoPassed = count(denoOutput, /^ok \| (\d+) passed/m, "deno");
console.log(`\nbun: ${bunPassed} passed; deno: ${denoPassed} passed`);
if (bunPassed !== denoPassed || bunPassed === 0) {
  console.error("The two runtimes ran a different number of tests (or none)");
  process.exit(1);
}
console.log(`${bunPassed + denoPassed} passed, 0 failed`);
