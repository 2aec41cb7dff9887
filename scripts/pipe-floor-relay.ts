/** The pass-through hop of scripts/pipe-floor.ts: runs argv[2..] and copies bytes both ways, unparsed. */
import { spawn } from "node:child_process";
import process from "node:process";

const child = spawn(process.argv[2], process.argv.slice(3), { stdio: ["pipe", "pipe", "inherit"] });
process.stdin.on("data", (chunk) => child.stdin.write(chunk));
process.stdin.on("end", () => child.stdin.end());
child.stdout.on("data", (chunk) => process.stdout.write(chunk));
child.on("exit", (code) => process.exit(code ?? 0));
