/**
 * Builds the single-file executable `dist/mcp-workbench` (or `--outfile PATH`) with `bun build --compile` for this host.
 * The version is compiled in (src/protocol/version.ts imports package.json), not read at run time.
 */
import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import process from "node:process";
import { BUN_COMPILE_FLAGS, WORKER_ENTRIES } from "./release/compile.ts";

const root = new URL("..", import.meta.url).pathname;
// `--outfile PATH` builds elsewhere (tests do); the default is what the README names.
const flag = process.argv.indexOf("--outfile");
const outfile = flag > 0 ? process.argv[flag + 1] : `${root}dist/mcp-workbench`;
const workers = WORKER_ENTRIES.map((file) => `${root}${file}`);
const args = ["build", ...BUN_COMPILE_FLAGS, `${root}src/main.ts`, ...workers, "--outfile", outfile];
const result = spawnSync(`${root}node_modules/.bin/bun`, args, { stdio: "inherit" });
if (result.status !== 0) process.exit(result.status ?? 1);
console.log(`Built ${outfile} (${(statSync(outfile).size / 1024 / 1024).toFixed(1)} MiB)`);
