/**
 * The pass-through hop of scripts/pipe-floor.ts: runs argv[2..] and copies bytes both ways, unparsed.
 * With `--whole` first, the server's lines are held whole and written once their newline came, as a
 * relay that checks a message before passing it on must (still unparsed): the floor of that.
 */
import { spawn } from "node:child_process";
import { Buffer } from "node:buffer";
import process from "node:process";

const whole = process.argv[2] === "--whole";
const argv = process.argv.slice(whole ? 3 : 2);
const child = spawn(argv[0], argv.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
// With backpressure both ways: a side that does not keep up pauses the other, so a large result
// is held a few chunks at a time, never whole.
process.stdin.on("data", (chunk) => {
  if (!child.stdin.write(chunk)) (process.stdin.pause(), child.stdin.once("drain", () => process.stdin.resume()));
});
process.stdin.on("end", () => child.stdin.end());
/** The chunks of the server's line not yet ended (with --whole). */
let held: Buffer[] = [];
child.stdout.on("data", (chunk: Buffer) => {
  if (whole) {
    const end = chunk.lastIndexOf(0x0a);
    if (end < 0) return void held.push(chunk);
    held.push(chunk.subarray(0, end + 1));
    const lines = held;
    held = end + 1 < chunk.length ? [chunk.subarray(end + 1)] : [];
    for (const piece of lines) process.stdout.write(piece);
    return;
  }
  if (!process.stdout.write(chunk)) (child.stdout.pause(), process.stdout.once("drain", () => child.stdout.resume()));
});
child.on("exit", (code) => process.exit(code ?? 0));
