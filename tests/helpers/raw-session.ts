/**
 * The workbench spoken to in raw JSON-RPC lines, for tests that send what no SDK client would:
 * every line it answers is kept, and the test can stop reading its stdout (backpressure).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { workbenchCommand, workbenchEnv } from "./runtime.ts";
import { tempDir, writeConfig } from "./workbench.ts";

/** A raw initialize request and the notification that completes the handshake. */
export const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});
export const INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}';

// deno-lint-ignore no-explicit-any
export type Reply = any;

export interface RawSession {
  pid: number;
  dir: string;
  /** Every line the workbench wrote to stdout so far, parsed. */
  replies: Reply[];
  write(text: string): Promise<void>;
  /** Waits (bounded) for a reply that matches, among those already in and those to come. */
  reply(match: (reply: Reply) => boolean, timeoutMs?: number): Promise<Reply>;
  /** The reply with this id, waited for. */
  answer(id: string | number, timeoutMs?: number): Promise<Reply>;
  stderr(): string;
  /** Stops reading the workbench's stdout (its pipe fills, its writes block); resume() goes on. */
  pause(): void;
  resume(): void;
  /** Closes stdin and waits (bounded) for the exit; SIGKILL if it does not come. */
  close(timeoutMs?: number): Promise<{ code: number | null; signal: string | null }>;
  child: ChildProcess;
}

export async function startRaw(config: unknown, options: { initialize?: boolean; env?: Record<string, string> } = {}): Promise<RawSession> {
  const dir = tempDir();
  const path = writeConfig(dir, config);
  const { command, args } = workbenchCommand(["--config", path]);
  const child = spawn(command, args, { env: workbenchEnv(options.env), cwd: dir, stdio: ["pipe", "pipe", "pipe"] });
  const replies: Reply[] = [];
  const waiters = new Set<() => void>();
  let stderr = "";
  let pending = "";
  child.stdout!.setEncoding("utf8").on("data", (text: string) => {
    pending += text;
    let end;
    while ((end = pending.indexOf("\n")) >= 0) {
      replies.push(JSON.parse(pending.slice(0, end)));
      pending = pending.slice(end + 1);
    }
    for (const wake of waiters) wake();
  });
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    child.on("exit", (code, signal) => {
      // Its folder holds the config and is its cwd: needed until it ends, whoever ends it.
      rmSync(dir, { recursive: true, force: true });
      resolve({ code, signal });
    });
  });

  const reply = (match: (reply: Reply) => boolean, timeoutMs = 20_000) =>
    new Promise<Reply>((resolve, reject) => {
      const check = () => {
        const found = replies.find(match);
        if (found === undefined) return;
        finish();
        resolve(found);
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`No matching reply within ${timeoutMs} ms; replies: ${JSON.stringify(replies).slice(0, 2_000)}\nstderr: ${stderr}`));
      }, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  const session: RawSession = {
    pid: child.pid!,
    dir,
    replies,
    child,
    write: (text) => new Promise((resolve, reject) => child.stdin!.write(text, (error) => (error ? reject(error) : resolve()))),
    reply,
    answer: (id, timeoutMs) => reply((r) => r.id === id, timeoutMs),
    stderr: () => stderr,
    pause: () => child.stdout!.pause(),
    resume: () => child.stdout!.resume(),
    async close(timeoutMs = 10_000) {
      child.stdin!.end();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const killed = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          child.kill("SIGKILL");
          resolve();
        }, timeoutMs);
      });
      await Promise.race([exited, killed]);
      clearTimeout(timer);
      return await exited;
    },
  };
  if (options.initialize ?? true) {
    await session.write(`${INITIALIZE}\n${INITIALIZED}\n`);
    await session.answer(1);
  }
  return session;
}
