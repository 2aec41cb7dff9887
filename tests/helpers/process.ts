/** Runs a command to completion with bounded time, for CLI behaviour tests. */
import { spawn } from "node:child_process";

export interface Completed {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

export function runToEnd(
  command: string,
  args: string[],
  options: { input?: string; env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {},
): Promise<Completed> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: options.env, cwd: options.cwd, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text));
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`Timed out: ${command} ${args.join(" ")}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 20_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(options.input ?? "");
  });
}
