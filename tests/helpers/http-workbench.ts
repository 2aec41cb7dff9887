/**
 * The workbench served over HTTP (`serve --http 127.0.0.1:0`) as a real process, and the clients
 * in front of it: the SDK 1.32 client (StreamableHTTPClientTransport, 2025-11-25) and the SDK v2
 * client pinned to 2026-07-28.
 */
import { type ChildProcess, spawn } from "node:child_process";
import process from "node:process";
import { Client as V2Client } from "@modelcontextprotocol/client";
import { StreamableHTTPClientTransport as V2HttpTransport } from "@modelcontextprotocol/client";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client } from "./sdk.ts";
import { workbenchCommand, workbenchEnv } from "./runtime.ts";
import { tempDir, writeConfig } from "./workbench.ts";

export interface HttpWorkbench {
  /** http://127.0.0.1:PORT/mcp, from the line on stderr. */
  url: string;
  /** The configuration file it serves (it follows changes to it). */
  configPath: string;
  pid: number;
  child: ChildProcess;
  stderr(): string;
  /** Sends the signal and waits (bounded) for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `serve --http` for `config`; resolves once the URL line is on stderr. */
export async function startHttpWorkbench(config: unknown, env: Record<string, string> = {}, address = "127.0.0.1:0", extra: string[] = []): Promise<HttpWorkbench> {
  const dir = tempDir();
  const path = writeConfig(dir, config);
  const { command, args } = workbenchCommand(["serve", "--http", address, "--config", path, ...extra]);
  const child = spawn(command, args, { env: workbenchEnv(env), cwd: dir, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`No URL on stderr within 20 s:\n${stderr}`)), 20_000);
    child.stderr!.on("data", (chunk: Uint8Array) => {
      stderr += new TextDecoder().decode(chunk);
      const found = /http:\/\/[^\s]+\/mcp/.exec(stderr);
      if (found) {
        clearTimeout(timer);
        resolve(found[0]);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`The workbench exited (${code}) before listening:\n${stderr}`));
    });
  });
  return {
    url,
    configPath: path,
    pid: child.pid!,
    child,
    stderr: () => stderr,
    async stop(signal = "SIGTERM") {
      // process.kill, not child.kill: under Deno a child we signalled reports the signal, not its exit code.
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, signal);
      const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), 15_000));
      const code = await Promise.race([exited, timeout]);
      if (code === null) child.kill("SIGKILL");
      return code;
    },
  };
}

/** An SDK 1.32 client over Streamable HTTP (2025-11-25), connected. */
export async function connectLegacy(url: string, client = new Client({ name: "http-test", version: "1.0.0" })): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, transport };
}

/** An SDK v2 client pinned to 2026-07-28 over HTTP, connected (server/discover). */
export async function connectModern(url: string, capabilities: Record<string, unknown> = {}): Promise<V2Client> {
  const client = new V2Client({ name: "http-test-2026", version: "2.4.0" }, {
    capabilities,
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await client.connect(new V2HttpTransport(new URL(url)));
  return client;
}
