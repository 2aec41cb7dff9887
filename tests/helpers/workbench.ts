/** Starts the workbench over real stdio with the official SDK client. */
import { type CallToolResult, Client, StdioClientTransport } from "./sdk.ts";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import process from "node:process";
import { workbenchCommand, workbenchEnv } from "./runtime.ts";

export interface Session {
  client: Client;
  transport: StdioClientTransport;
  dir: string;
  pid: number;
  /** What the workbench wrote to stderr so far (kept out of the test output; quote it in failures). */
  stderr(): string;
  /** Calls a meta-tool and returns its result. */
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** Folders made by tempDir() and not yet removed. */
const made = new Set<string>();
/**
 * Every folder tempDir() made, removed once more when the test process exits: a workbench or
 * server that was still shutting down when its test ended may have written into one after
 * removeTempDirs (a listing cache recreates its folder), and the suite checks the temp dir after.
 */
const madeEver = new Set<string>();
const sweep = () => {
  for (const dir of madeEver) rmSync(dir, { recursive: true, force: true });
};
process.on("exit", sweep);
// Deno's test runner ends without node's "exit" event; it dispatches "unload".
globalThis.addEventListener?.("unload", sweep);

/**
 * A fresh folder in the temp dir. Removed by removeTempDirs(), which every test file that makes
 * folders it does not remove itself runs when its tests are done: `after(removeTempDirs)`.
 */
export function tempDir(): string {
  const dir = mkdtempSync(`${tmpdir()}/workbench-test-`);
  made.add(dir);
  madeEver.add(dir);
  return dir;
}

/** Removes every folder tempDir() has made so far (those removed already are skipped). */
export function removeTempDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
}

export function writeConfig(dir: string, config: unknown): string {
  const path = `${dir}/workbench-config.json`;
  writeFileSync(path, JSON.stringify(config, null, 2));
  return path;
}

/** `client` is the SDK client in front, unconnected: one that declares capabilities, with its handlers. */
export async function startWorkbench(
  config: unknown,
  env: Record<string, string> = {},
  client = new Client({ name: "workbench-test", version: "1.0.0" }),
  extraArgs: string[] = [],
): Promise<Session> {
  const dir = tempDir();
  const path = writeConfig(dir, config);
  const { command, args } = workbenchCommand(["--config", path, ...extraArgs]);
  const transport = new StdioClientTransport({
    command,
    args,
    env: workbenchEnv(env),
    stderr: "pipe",
    cwd: dir,
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => (stderr += new TextDecoder().decode(chunk)));
  await client.connect(transport);
  return {
    client,
    transport,
    dir,
    pid: transport.pid!,
    stderr: () => stderr,
    call: (name, args) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>,
    async close() {
      const pid = transport.pid;
      await client.close();
      // The SDK's close stops waiting after a few seconds; a workbench still shutting down could
      // write its listing cache into a folder removed under it (a test's cache lives in its temp dir).
      if (pid !== null) await exited(pid, 10_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves once the process `pid` is gone, or after `ms`. */
export async function exited(pid: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Runs `fn` with a fresh workbench for `config`, and always closes it. */
export async function withWorkbench<T>(
  config: unknown,
  fn: (session: Session) => Promise<T>,
  env: Record<string, string> = {},
): Promise<T> {
  const session = await startWorkbench(config, env);
  try {
    return await fn(session);
  } finally {
    await session.close();
  }
}

/** The text of a result's first content block. */
export function textOf(result: CallToolResult): string {
  const block = result.content[0];
  if (block?.type !== "text") throw new Error(`Expected text content, got ${JSON.stringify(result)}`);
  return block.text;
}
