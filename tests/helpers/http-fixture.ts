/** Starts our HTTP fixture server (or server-everything over HTTP) on loopback and stops it by pid. */
import { type ChildProcess, spawn } from "node:child_process";
import process from "node:process";
import { fixture, repoRoot, runScript } from "./runtime.ts";

export interface HttpFixture {
  port: number;
  /** http://127.0.0.1:<port><path> */
  url(path?: string): string;
  /** What it wrote to stderr so far. */
  stderr(): string;
  stop(): Promise<void>;
}

const START_MS = 30_000;

/** Our fixture (tests/fixtures/http-server.ts) with extra environment variables. */
export function startHttpFixture(env: Record<string, string> = {}): Promise<HttpFixture> {
  return startListening(runScript(fixture("http-server.ts")), env);
}

/** The careless server of the masking tests (tests/fixtures/leaky-server.ts) over Streamable HTTP. */
export function startLeakyHttp(): Promise<HttpFixture> {
  return startListening(runScript(fixture("leaky-server.ts"), ["--http"]), {});
}

/** server-everything's Streamable HTTP ("/mcp") or SSE ("/sse") server, forced onto loopback. */
export function startEverythingHttp(which: "streamableHttp" | "sse"): Promise<HttpFixture> {
  return startListening(runScript(fixture("everything-http.ts"), [which]), {});
}

/**
 * The SDK v2 fixture (tests/fixtures/v2-server.ts) over Streamable HTTP: stateless 2025-11-25 and
 * 2026-07-28. `servedByBun` runs it with Bun whatever runs the test: a handler served by
 * Deno.serve is not told when the client ends its POST, so it never sees a cancellation.
 */
export function startV2Http(servedByBun = false): Promise<HttpFixture> {
  const script = fixture("v2-server.ts");
  const run = servedByBun ? { command: `${repoRoot}/node_modules/.bin/bun`, args: [script, "--http"] } : runScript(script, ["--http"]);
  return startListening(run, {});
}

function startListening(run: { command: string; args: string[] }, env: Record<string, string>): Promise<HttpFixture> {
  const child: ChildProcess = spawn(run.command, run.args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`HTTP fixture did not start in ${START_MS} ms; stderr: ${stderr}`));
    }, START_MS);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`HTTP fixture exited with code ${code}; stderr: ${stderr}`));
    });
    child.stdout!.setEncoding("utf8").on("data", (text: string) => {
      stdout += text;
      const match = /listening (\d+)/.exec(stdout);
      if (!match) return;
      clearTimeout(timer);
      const port = Number(match[1]);
      resolve({
        port,
        url: (path = "/mcp") => `http://127.0.0.1:${port}${path}`,
        stderr: () => stderr,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, "SIGKILL");
          await exited;
        },
      });
    });
  });
}
