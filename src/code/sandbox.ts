/**
 * Code mode's sandbox as the workbench sees it: runs one script in a worker (sandbox-worker.ts,
 * QuickJS in WebAssembly) and answers its tool calls with the function it is given, the only door
 * out. The workbench holds the limits it can see from outside: calls, output size, cancellation,
 * and a deadline it enforces by ending the worker should the worker fail to. The workers are
 * shared fairly among clients: one client holds at most all but one of them, so another client's
 * script never waits behind it, and a freed worker goes to the waiting client that holds fewest.
 * Nothing here loads before the first script: the worker, QuickJS and sucrase start with it.
 */
import type { CallToolResult } from "../protocol/sdk.ts";
import type { CodeModeLimits } from "../config/index.ts";
import type { FromWorker, RunMessage, ToWorker } from "./messages.ts";
import { utf8Bytes } from "../transport/utf8.ts";

/**
 * A tool call of the script; `signal` aborts when the script ends or run_code is cancelled. `args`
 * undefined: the tool is none of `servers`, and its arguments were not copied out of the sandbox.
 */
export type SandboxCall = (
  server: string,
  name: string,
  args: Record<string, unknown> | undefined,
  signal: AbortSignal,
) => Promise<CallToolResult>;

export interface ScriptRun {
  code: string;
  /** Per server, the names of the tools `tools.<server>` holds. */
  servers: Record<string, string[]>;
  limits: CodeModeLimits;
  call: SandboxCall;
  /** Aborted when the client cancels run_code: the script and its calls end. */
  signal: AbortSignal;
  /** Whose script it is, for sharing the workers ("local" when not said). */
  client?: string;
}

export type ScriptOutcome =
  | { ok: true; result: unknown; logs: string[]; calls: number }
  | { ok: false; error: string; logs: string[]; calls: number };

/** Time past timeoutMs the worker has to stop its script itself before it is ended from here. */
const GRACE_MS = 1_000;
/** Time a worker may take to load QuickJS and sucrase before the script's clock starts (seconds under load). */
const START_MS = 30_000;
/** Scripts running at once; more wait their turn (each worker holds up to memoryMiB and more). */
const MAX_WORKERS = 4;
/** Scripts of one client running at once: one worker is always left for another client. */
const MAX_PER_CLIENT = MAX_WORKERS - 1;
/** Workers kept for the next script: starting one costs tens of milliseconds. */
const MAX_IDLE = 1;

type SandboxWorker = Omit<Worker, "postMessage"> & { postMessage(message: ToWorker): void; unref?: () => void };

const idle: SandboxWorker[] = [];
let active = 0;
/** Workers held, per client. */
const held = new Map<string, number>();
/** Scripts waiting for a worker, oldest first. */
const waiting: { client: string; start: () => void }[] = [];

/**
 * The worker's file. In the executable every chunk sits at the root of the bundle, beside
 * code/sandbox-worker.ts, the worker compiled in with it (scripts/release/compile.ts); from source,
 * beside this file.
 */
function workerUrl(): string {
  const bundled = !import.meta.url.endsWith("/code/sandbox.ts");
  return new URL(bundled ? "./code/sandbox-worker.ts" : "./sandbox-worker.ts", import.meta.url).href;
}

function newWorker(): SandboxWorker {
  const worker = new Worker(workerUrl(), { type: "module" }) as SandboxWorker;
  // An idle worker must not keep the process alive (Bun has unref; Deno's idle workers do not hold it).
  worker.unref?.();
  return worker;
}

/** Resolves true once the script has a worker, false when cancelled while it waited. */
function acquire(client: string, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const waiter = {
      client,
      start: () => {
        signal.removeEventListener("abort", cancel);
        resolve(true);
      },
    };
    // A cancelled waiter leaves the queue: a release must start a script still waiting, not it.
    const cancel = () => {
      const at = waiting.indexOf(waiter);
      if (at !== -1) waiting.splice(at, 1);
      resolve(false);
    };
    signal.addEventListener("abort", cancel, { once: true });
    waiting.push(waiter);
    dispatch();
  });
}

/** Gives free workers to waiting scripts: each to the oldest of the client holding fewest, never past MAX_PER_CLIENT. */
function dispatch(): void {
  while (active < MAX_WORKERS) {
    let chosen = -1;
    for (const [at, waiter] of waiting.entries()) {
      const count = held.get(waiter.client) ?? 0;
      if (count >= MAX_PER_CLIENT) continue;
      if (chosen === -1 || count < (held.get(waiting[chosen].client) ?? 0)) chosen = at;
    }
    if (chosen === -1) return;
    const [waiter] = waiting.splice(chosen, 1);
    active++;
    held.set(waiter.client, (held.get(waiter.client) ?? 0) + 1);
    waiter.start();
  }
}

function release(client: string): void {
  active--;
  const left = (held.get(client) ?? 1) - 1;
  if (left > 0) held.set(client, left);
  else held.delete(client);
  dispatch();
}

/** Ends the idle workers (tests, and a workbench that stops). */
export function closeSandboxes(): void {
  for (const worker of idle.splice(0)) worker.terminate();
}

/** Runs the script; every way it can end is an outcome, never a throw. */
export async function runInSandbox(run: ScriptRun): Promise<ScriptOutcome> {
  const client = run.client ?? "local";
  if (!await acquire(client, run.signal)) return { ok: false, error: "Script stopped: run_code was cancelled", logs: [], calls: 0 };
  try {
    return await new Promise<ScriptOutcome>((resolve) => supervise(run, idle.pop() ?? newWorker(), resolve));
  } finally {
    release(client);
  }
}

function supervise(run: ScriptRun, worker: SandboxWorker, resolve: (outcome: ScriptOutcome) => void): void {
  new Supervision(run, worker, resolve).start();
}

/** One script on one worker: its logs and calls counted against the limits, and its one outcome. */
class Supervision {
  readonly #run: ScriptRun;
  readonly #worker: SandboxWorker;
  readonly #resolve: (outcome: ScriptOutcome) => void;
  readonly #logs: string[] = [];
  #logBytes = 0;
  #calls = 0;
  #finished = false;
  /** Aborted when the script ends: its calls still in flight are cancelled. */
  readonly #ended = new AbortController();
  readonly #inner: AbortSignal;
  #backstop?: ReturnType<typeof setTimeout>;
  readonly #onAbort = () => this.#fail("Script stopped: run_code was cancelled");

  constructor(run: ScriptRun, worker: SandboxWorker, resolve: (outcome: ScriptOutcome) => void) {
    this.#run = run;
    this.#worker = worker;
    this.#resolve = resolve;
    this.#inner = AbortSignal.any([run.signal, this.#ended.signal]);
  }

  start(): void {
    const { run, limits } = { run: this.#run, limits: this.#run.limits };
    this.#backstop = setTimeout(() => this.#fail(`Script failed: the sandbox did not start within ${START_MS / 1000} s`), START_MS);
    run.signal.addEventListener("abort", this.#onAbort, { once: true });
    this.#worker.onmessage = (event: MessageEvent<FromWorker>) => this.#heard(event.data);
    this.#worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      // The first line only: an engine's message may quote its own source at length.
      this.#fail(`Script failed: the sandbox broke: ${String(event.message).split("\n")[0].slice(0, 200)}`);
    };
    if (run.signal.aborted) return this.#onAbort();
    const message: RunMessage = { type: "run", code: run.code, servers: run.servers, limits };
    this.#worker.postMessage(message);
  }

  #heard(message: FromWorker): void {
    const { limits } = this.#run;
    if (message.type === "log") return this.#log(message.line);
    if (message.type === "started") {
      clearTimeout(this.#backstop);
      this.#backstop = setTimeout(
        () => this.#fail(`Script stopped: it ran past the time limit: timeoutMs (${limits.timeoutMs} ms)`),
        limits.timeoutMs + GRACE_MS,
      );
      return;
    }
    if (message.type === "call") {
      if (this.#calls >= limits.maxCalls) {
        return this.#fail(`Script stopped: it made more tool calls than the limit: maxCalls (${limits.maxCalls})`);
      }
      this.#calls++;
      void this.#answer(message.id, message.server, message.name, message.args);
      return;
    }
    if (!message.ok) return this.#fail(message.error, !message.broken);
    const bytes = utf8Bytes(message.json);
    if (bytes > limits.maxOutputBytes) {
      return this.#fail(
        `Script stopped: its result is larger than the limit: maxOutputBytes (${bytes} bytes of ${limits.maxOutputBytes})`,
        true,
      );
    }
    this.#finish({ ok: true, result: JSON.parse(message.json), logs: this.#logs, calls: this.#calls }, true);
  }

  #log(line: string): void {
    const max = this.#run.limits.maxOutputBytes;
    if (this.#logBytes > max) return;
    this.#logBytes += line.length;
    this.#logs.push(this.#logBytes > max ? `(further lines left out: the logs reached maxOutputBytes, ${max} bytes)` : line);
  }

  async #answer(id: number, server: string, name: string, argsJson: string | null): Promise<void> {
    let result: CallToolResult;
    try {
      result = await this.#run.call(
        server,
        name,
        argsJson === null ? undefined : JSON.parse(argsJson) as Record<string, unknown>,
        this.#inner,
      );
    } catch (error) {
      result = { content: [{ type: "text", text: error instanceof Error ? error.message : String(error) }], isError: true };
    }
    if (!this.#finished) this.#worker.postMessage({ type: "reply", id, result: JSON.stringify(result) });
  }

  #fail(error: string, keep = false): void {
    this.#finish({ ok: false, error, logs: this.#logs, calls: this.#calls }, keep);
  }

  /** The one outcome: the worker is kept for the next script (when it is sound) or ended. */
  #finish(outcome: ScriptOutcome, keep: boolean): void {
    if (this.#finished) return;
    this.#finished = true;
    clearTimeout(this.#backstop);
    this.#run.signal.removeEventListener("abort", this.#onAbort);
    this.#ended.abort();
    this.#worker.onmessage = null;
    this.#worker.onerror = null;
    if (keep && idle.length < MAX_IDLE) idle.push(this.#worker);
    else this.#worker.terminate();
    this.#resolve(outcome);
  }
}
