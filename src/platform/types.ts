/** The small surface the runtime-neutral core needs from Bun or Deno. */

export type Signal = "SIGINT" | "SIGTERM" | "SIGHUP" | "SIGKILL";

export interface ExitStatus {
  /** Exit code, or null when the process was ended by a signal. */
  code: number | null;
  /** Name of the signal that ended the process, or null. */
  signal: string | null;
}

export interface SpawnOptions {
  /** The child's whole environment: nothing of ours is added. */
  env: Record<string, string>;
  cwd?: string;
}

export interface ChildProcess {
  pid: number;
  stdin: WritableStream<Uint8Array>;
  stdout: ReadableStream<Uint8Array>;
  exited: Promise<ExitStatus>;
  /** Sends a signal; a process that has already exited is left alone. */
  kill(signal?: Signal): void;
}

export interface Platform {
  runtime: "bun" | "deno";
  /** Command-line arguments after the program (and script) name. */
  args: string[];
  env: Record<string, string>;
  cwd: string;
  stdin: ReadableStream<Uint8Array>;
  stdout: WritableStream<Uint8Array>;
  /** Writes text to stderr at once; logs never go to stdout. */
  writeStderr(text: string): void;
  readTextFile(path: string): Promise<string>;
  /** Starts a child with piped stdin/stdout; its stderr goes to ours. Throws if it cannot start. */
  spawn(command: string, args: string[], options: SpawnOptions): ChildProcess;
  onSignal(signal: Exclude<Signal, "SIGKILL">, handler: () => void): void;
  exit(code: number): never;
}
