/**
 * Code mode's workers shared among clients, end to end over `serve --http` with two token
 * clients: while client a runs 8 endless scripts, client b's one-line run_code answers before any
 * of a's scripts ends. Judged by that order, not by a number of seconds: unfairly shared workers
 * make b wait for one of a's scripts to end, at its timeoutMs (30 s), however fast the machine.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import process from "node:process";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client } from "../helpers/sdk.ts";
import { startHttpWorkbench } from "../helpers/http-workbench.ts";
import { eventually, fx } from "../helpers/toolbox.ts";
import { removeTempDirs } from "../helpers/workbench.ts";

after(removeTempDirs);

const sha = (token: string) => createHash("sha256").update(token).digest("hex");
/** What each of a's scripts writes (through the server's stderr) once it has a worker, before it spins. */
const SPINS = "a's script spins";
/** Scripts of one client running at once (src/code/sandbox.ts: all workers but one). */
const HELD_BY_ONE_CLIENT = 3;

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: Math.round(performance.now() - started) };
}

test("code mode fairness: client b's one-line run_code answers while client a's 8 endless scripts all still run", async () => {
  const wb = await startHttpWorkbench({
    codeMode: { timeoutMs: 30_000 },
    toolboxes: { dev: { mcpServers: { s: fx("s") } } },
    serve: { clients: { a: { tokenSha256: sha("token-of-a-0123"), toolboxes: ["*"] }, b: { tokenSha256: sha("token-of-b-0123"), toolboxes: ["*"] } } },
  });
  const connect = async (token: string) => {
    const client = new Client({ name: "fairness", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(wb.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    return client;
  };
  const [a, b] = await Promise.all([connect("token-of-a-0123"), connect("token-of-b-0123")]);
  const runCode = (client: Client, code: string) => client.callTool({ name: "run_code", arguments: { toolbox: "dev", code } }, undefined, { timeout: 60_000 });
  const spinning = () => wb.stderr().split(SPINS).length - 1;
  try {
    // Each client's server is up before anything is measured.
    await Promise.all([runCode(a, "return 0;"), runCode(b, "return 0;")]);
    // The control, in this run on this machine as loaded now: the same one-line script alone.
    const alone = await timed(() => runCode(b, "return 1 + 1;"));
    let ended = 0;
    const endless = Array.from({ length: 8 }, () =>
      runCode(a, `await tools.s.log({ text: ${JSON.stringify(SPINS)} }); for (;;) {}`).catch(() => undefined).finally(() => ended++)
    );
    // Awaited, not slept for: a holds every worker it may hold, its other scripts wait for one.
    await eventually("a's scripts spinning", spinning, (count) => count >= HELD_BY_ONE_CLIENT, 30_000);
    const beside = await timed(() => runCode(b, "return 1 + 1;"));
    process.stderr.write(`client b's one-line script: ${alone.ms} ms alone, ${beside.ms} ms beside a's 8 endless scripts\n`);
    assert.deepEqual(beside.value.structuredContent, { result: 2, logs: [], calls: 0 }, JSON.stringify(beside.value));
    assert.equal(ended, 0, `client b waited for ${ended} of a's scripts to end (${beside.ms} ms; ${alone.ms} ms alone)`);
    void endless;
  } finally {
    await Promise.all([a.close(), b.close()]).catch(() => {});
    const code = await wb.stop();
    assert.equal(code, 0, wb.stderr());
  }
});
