/**
 * Issue 42's start-up floor: two small programs built as the executable is (scripts/release/
 * compile.ts's flags) that answer `initialize` on stdin, one by hand with no SDK, one through the
 * MCP SDK's Server (zod configured first, as src/main.ts does). `bun scripts/start-floor.ts` builds
 * them into bench-results/start-floor/ and prints their paths; measure them beside a build with
 * `bun scripts/compare-builds.ts start bench-results/start-floor/bare bench-results/start-floor/sdk-server dist/mcp-workbench`
 * (they ignore the --config the comparison passes).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { BUN, repoRoot } from "./bench/targets.ts";
import { BUN_COMPILE_FLAGS } from "./release/compile.ts";

/** Reads lines from stdin and hands each parsed message to `handle`. */
const READ_LINES = `
const reader = Bun.stdin.stream().getReader();
const out = Bun.stdout.writer();
const write = (message) => { out.write(JSON.stringify(message) + "\\n"); out.flush(); };
const decoder = new TextDecoder();
let buffer = "";
async function readLines(handle) {
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf("\\n"); end >= 0; end = buffer.indexOf("\\n")) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      if (line.trim()) handle(JSON.parse(line));
    }
  }
}
`;

const PROGRAMS: Record<string, string> = {
  bare: `${READ_LINES}
await readLines((message) => {
  if (message.method !== "initialize") return;
  const result = { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "bare", version: "0" } };
  write({ jsonrpc: "2.0", id: message.id, result });
});
`,
  // zod configured before the SDK builds its schemas: the SDK is imported after, dynamically (a
  // static import is evaluated before any line of the importing module, as src/main.ts says).
  "sdk-server": `import * as z from "zod";
z.config({ jitless: true });
const { Server } = await import("@modelcontextprotocol/sdk/server/index.js");
${READ_LINES}
const transport = { start: async () => {}, send: async (message) => write(message), close: async () => {} };
const server = new Server({ name: "sdk-server", version: "0" }, { capabilities: { tools: {} } });
await server.connect(transport);
await readLines((message) => transport.onmessage(message));
`,
};

const dir = `${repoRoot}/bench-results/start-floor`;
mkdirSync(dir, { recursive: true });
for (const [name, source] of Object.entries(PROGRAMS)) {
  // Inside the repository, so that the packages resolve from its node_modules.
  const entry = `${dir}/${name}.js`;
  writeFileSync(entry, source);
  try {
    execFileSync(BUN, ["build", ...BUN_COMPILE_FLAGS, entry, "--outfile", `${dir}/${name}`], { stdio: "pipe" });
  } finally {
    rmSync(entry, { force: true });
  }
  console.log(`${dir}/${name}`);
}
