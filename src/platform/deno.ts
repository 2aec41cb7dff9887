/** The Deno adapter: `Deno.*` stays in this file. */
import type { ChildProcess, Platform, Signal, SpawnOptions } from "./types.ts";
import { spawnError } from "./spawn-error.ts";

function spawn(command: string, args: string[], options: SpawnOptions): ChildProcess {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(command, {
      args,
      env: options.env,
      clearEnv: true,
      cwd: options.cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
  } catch (error) {
    throw spawnError(command, error);
  }
  let done = false;
  const exited = child.status.then((status) => {
    done = true;
    return { code: status.signal ? null : status.code, signal: status.signal ?? null };
  });
  return {
    pid: child.pid,
    stdin: child.stdin,
    stdout: child.stdout,
    exited,
    kill(signal: Signal = "SIGTERM") {
      if (done) return;
      try {
        child.kill(signal);
      } catch {
        // It exited between our check and the kill.
      }
    },
  };
}

export const platform: Platform = {
  runtime: "deno",
  args: Deno.args,
  env: Deno.env.toObject(),
  cwd: Deno.cwd(),
  stdin: Deno.stdin.readable,
  stdout: Deno.stdout.writable,
  writeStderr(text) {
    const bytes = new TextEncoder().encode(text);
    let written = 0;
    while (written < bytes.length) written += Deno.stderr.writeSync(bytes.subarray(written));
  },
  readTextFile: (path) => Deno.readTextFile(path),
  spawn,
  onSignal(signal, handler) {
    Deno.addSignalListener(signal, handler);
  },
  exit(code) {
    Deno.exit(code);
  },
};
