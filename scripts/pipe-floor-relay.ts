/** The pass-through hop of scripts/pipe-floor.ts: runs argv[2..] and copies bytes both ways, unparsed. */
import { spawn } from "node:child_process";
import process from "node:process";

const child = spawn(process.argv[2], process.argv.slice(3), { stdio: ["pipe", "pipe", "inherit"] });
// With backpressure both ways: a side that does not keep up pauses the other, so a large result
// is held a few chunks at a time, never whole.
process.stdin.on("data", (chunk) => {
  if (!child.stdin.write(chunk)) (process.stdin.pause(), child.stdin.once("drain", () => process.stdin.resume()));
});
process.stdin.on("end", () => child.stdin.end());
child.stdout.on("data", (chunk) => {
  if (!process.stdout.write(chunk)) (child.stdout.pause(), process.stdout.once("drain", () => child.stdout.resume()));
});
child.on("exit", (code) => process.exit(code ?? 0));
