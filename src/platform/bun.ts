/** The Bun adapter: Bun and Node-compatible APIs stay in this file. */
import type { ChildProcess, ExitStatus, Platform, Signal, SpawnOptions } from "./types.ts";
import { spawnError } from "./spawn-error.ts";

interface FileSinkLike {
  write(chunk: Uint8Array): number;
  flush(): number | Promise<number>;
  end(): number | Promise<number>;
}

/** Bun gives a FileSink for pipes; the core wants a WritableStream. */
function sinkToWritable(sink: FileSinkLike): WritableStream<Uint8Array> {
  return new WritableStream<Uint8Array>({
    async write(chunk) {
      sink.write(chunk);
      await sink.flush();
    },
    async close() {
      await sink.end();
    },
    async abort() {
      await sink.end();
    },
  });
}

function spawn(command: string, args: string[], options: SpawnOptions): ChildProcess {
  let proc;
  try {
    proc = Bun.spawn([command, ...args], {
      env: options.env,
      cwd: options.cwd,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "inherit",
    });
  } catch (error) {
    throw spawnError(command, error);
  }
  const exited: Promise<ExitStatus> = proc.exited.then(() => {
    const signal = proc.signalCode === null ? null : String(proc.signalCode);
    return { code: signal ? null : proc.exitCode, signal };
  });
  return {
    pid: proc.pid,
    stdin: sinkToWritable(proc.stdin as FileSinkLike),
    stdout: proc.stdout as ReadableStream<Uint8Array>,
    exited,
    kill(signal: Signal = "SIGTERM") {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
    },
  };
}

export const platform: Platform = {
  runtime: "bun",
  args: process.argv.slice(2),
  env: process.env as Record<string, string>,
  cwd: process.cwd(),
  // Getters: importing the adapter (as tests do) must not take over our stdio.
  get stdin() {
    return Bun.stdin.stream() as ReadableStream<Uint8Array>;
  },
  get stdout() {
    return sinkToWritable(Bun.stdout.writer() as FileSinkLike);
  },
  writeStderr(text) {
    process.stderr.write(text);
  },
  readTextFile: (path) => Bun.file(path).text(),
  spawn,
  onSignal(signal, handler) {
    process.on(signal, handler);
  },
  exit(code) {
    process.exit(code);
  },
};
