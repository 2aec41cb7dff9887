/**
 * A workbench spoken to in raw newline-delimited JSON-RPC over stdio, for the loads that stop
 * reading (stalled.ts, paged-unread.ts): each reply handed over as it is read, the last 4,000
 * characters of stderr kept for a failure's message, and a bounded wait that wakes on each read.
 */
import { type ChildProcess, spawn } from "node:child_process";

export interface RawChild {
  child: ChildProcess;
  /** Waits until `done()` holds, checking on each read and every `pollMs`; past `boundMs` it throws, with stderr's tail. */
  until(done: () => boolean, boundMs: number, what: string, pollMs?: number): Promise<void>;
}

export interface RawCommand {
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
}

// deno-lint-ignore no-explicit-any
export function startRawChild(options: RawCommand, onReply: (reply: any) => void): RawChild {
  const child = spawn(options.command, options.args, { env: options.env, cwd: options.cwd, stdio: ["pipe", "pipe", "pipe"] });
  child.stdin!.on("error", () => {});
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr = (stderr + text).slice(-4_000)));
  let wake: (() => void) | undefined;
  let pending = "";
  child.stdout!.setEncoding("utf8").on("data", (text: string) => {
    pending += text;
    let start = 0;
    for (let end = pending.indexOf("\n"); end >= 0; start = end + 1, end = pending.indexOf("\n", start)) {
      onReply(JSON.parse(pending.slice(start, end)));
    }
    pending = pending.slice(start);
    wake?.();
  });
  const until = async (done: () => boolean, boundMs: number, what: string, pollMs = 100) => {
    const deadline = Date.now() + boundMs;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`No ${what} within ${boundMs} ms; stderr: ${stderr}`);
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, pollMs);
      });
    }
  };
  return { child, until };
}
