/**
 * Runs one script in QuickJS (WebAssembly), inside a sandbox worker: a fresh runtime and context
 * per run, the limits set on it, tool calls as promises the host resolves. QuickJS's sync build
 * has no asyncified host calls, so a host call returns a QuickJS promise that is resolved when
 * the answer comes, and the runtime's pending jobs are run until the script's promise settles.
 */
import type {
  CustomizeVariantOptions,
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSWASMModule,
} from "quickjs-emscripten-core";
import type { DoneMessage, RunMessage } from "./messages.ts";
import { PRELUDE } from "./prelude.ts";
import { describeFailure, type Stop, syntaxError } from "./failures.ts";
import { CallBudget } from "./call-budget.ts";

/** What the engine needs from its worker: the way out for tool calls and log lines. */
export interface EngineHost {
  /** `args` null: not copied out (see CallMessage). */
  call(server: string, name: string, args: string | null): Promise<string>;
  log(line: string): void;
  /** The engine is ready and the script's clock starts. */
  started(): void;
}

const MIB = 1024 * 1024;
/** WebAssembly pages of 64 KiB; QuickJS's build starts with 16 MiB (its stack and static data). */
const PAGES_PER_MIB = 16;
const INITIAL_PAGES = 16 * PAGES_PER_MIB;
/** Deep recursion ends with "stack overflow" well inside the build's own stack. */
const MAX_STACK_BYTES = 512 * 1024;

let loaded: { memoryMiB: number; memory: WebAssembly.Memory; module: Promise<QuickJSWASMModule> } | undefined;

/**
 * One module per worker, its WebAssembly memory fixed at the limit plus the build's start: no
 * allocation of QuickJS, its strings or the host's, can grow the process past it.
 */
function moduleFor(memoryMiB: number): Promise<QuickJSWASMModule> {
  if (loaded?.memoryMiB === memoryMiB) return loaded.module;
  const wasmMemory = new WebAssembly.Memory({ initial: INITIAL_PAGES, maximum: INITIAL_PAGES + memoryMiB * PAGES_PER_MIB });
  // The engine's own abort messages are not the workbench's output: the failure is reported as a value.
  const quiet = { print: () => {}, printErr: () => {} } as CustomizeVariantOptions["emscriptenModule"];
  // Imported when first needed: measured in the executable, the static form held about 100 MiB more at the first run.
  const module = Promise.all([import("quickjs-emscripten-core"), import("@jitl/quickjs-singlefile-mjs-release-sync")])
    .then(([core, variant]) =>
      core.newQuickJSWASMModuleFromVariant(core.newVariant(variant.default, { wasmMemory, emscriptenModule: quiet }))
    );
  loaded = { memoryMiB, memory: wasmMemory, module };
  return module;
}

/** The script's body as an async function, its types stripped; line 1 of the body is line 2 here. */
export async function compile(code: string): Promise<{ ok: true; source: string } | { ok: false; error: string }> {
  const source = `(async function script() {\n${code}\n})`;
  const { transform } = await import("sucrase");
  try {
    return { ok: true, source: transform(source, { transforms: ["typescript"], disableESTransforms: true }).code };
  } catch (error) {
    return { ok: false, error: syntaxError(error instanceof Error ? error.message : String(error)) };
  }
}

export async function runScript(run: RunMessage, host: EngineHost): Promise<DoneMessage> {
  const compiled = await compile(run.code);
  if (!compiled.ok) return { type: "done", ok: false, error: compiled.error };
  const { limits } = run;
  const module = await moduleFor(limits.memoryMiB);
  host.started();
  const runtime = module.newRuntime();
  const deadline = Date.now() + limits.timeoutMs;
  let stop: Stop | undefined;
  runtime.setMemoryLimit(limits.memoryMiB * MIB);
  runtime.setMaxStackSize(MAX_STACK_BYTES);
  runtime.setInterruptHandler(() => {
    if (Date.now() < deadline) return false;
    stop = "timeout";
    return true;
  });
  const context = runtime.newContext();
  let done: DoneMessage;
  let broken = false;
  try {
    done = await evaluate(context, compiled.source, run, host, deadline, () => stop, (why) => stop = why);
  } catch (error) {
    // An error of the engine itself (WebAssembly out of memory, an abort): this module is spent.
    broken = true;
    done = { type: "done", ok: false, error: describeFailure({ name: "InternalError", message: String(error) }, "memory", limits) };
  }
  try {
    context.dispose();
    runtime.dispose();
  } catch {
    broken = true;
  }
  if (broken) loaded = undefined;
  if (done.ok) return broken ? { type: "done", ok: false, error: "Script failed: the sandbox broke", broken } : done;
  // A script stopped at a limit may have grown the memory to its maximum: the worker is let go.
  return broken || done.error.startsWith("Script stopped") ? { ...done, broken: true } : done;
}

async function evaluate(
  context: QuickJSContext,
  source: string,
  run: RunMessage,
  host: EngineHost,
  deadline: number,
  stopped: () => Stop | undefined,
  setStop: (why: Stop) => void,
): Promise<DoneMessage> {
  const { limits } = run;
  const fail = (error: unknown): DoneMessage => {
    // Out of memory, QuickJS may not even make the error object: the script throws null then.
    if (error === null && memoryFull(limits.memoryMiB)) setStop("memory");
    return { type: "done", ok: false, error: describeFailure(error, stopped(), limits) };
  };
  // Calls not answered yet; one the script did not wait for is disposed with the context.
  const pending = new Set<QuickJSDeferredPromise>();
  let wake: () => void = () => {};
  const given = { servers: run.servers, maxCalls: limits.maxCalls };
  const calls = new CallBudget(context, host, pending, () => wake(), () => setStop("memory"), given);
  const hostCall = context.newFunction(
    "hostCall",
    (server, name, args) => calls.add(context.getString(server), context.getString(name), args),
  );
  const hostLog = context.newFunction("hostLog", (line) => {
    host.log(context.getString(line));
  });
  const handles: QuickJSHandle[] = [hostCall, hostLog];
  try {
    const started = startScript(context, source, run, { hostCall, hostLog }, handles);
    if ("error" in started) return fail(started.error);
    return await settled(context, started.promise, {
      deadline,
      stopped,
      setStop,
      fail,
      pending,
      waiting: (resolve) => wake = resolve,
      wake: () => wake(),
    });
  } finally {
    calls.dispose();
    for (const deferred of pending) if (deferred.alive) deferred.dispose();
    for (const handle of handles.reverse()) if (handle.alive) handle.dispose();
  }
}

/** The prelude run, the script compiled and called: its promise, or what it threw. Every handle made goes to `handles`. */
function startScript(
  context: QuickJSContext,
  source: string,
  run: RunMessage,
  host: { hostCall: QuickJSHandle; hostLog: QuickJSHandle },
  handles: QuickJSHandle[],
): { promise: QuickJSHandle } | { error: unknown } {
  const prelude = context.unwrapResult(context.evalCode(PRELUDE, "prelude.js"));
  handles.push(prelude);
  const servers = context.newString(JSON.stringify(run.servers));
  handles.push(servers);
  const finish = context.unwrapResult(context.callFunction(prelude, context.undefined, host.hostCall, host.hostLog, servers));
  handles.push(finish);
  const compiled = context.evalCode(source, "script.js");
  if (compiled.error) {
    const error = context.dump(compiled.error);
    compiled.error.dispose();
    return { error };
  }
  handles.push(compiled.value);
  const started = context.callFunction(finish, context.undefined, compiled.value);
  if (started.error) {
    const error = context.dump(started.error);
    started.error.dispose();
    return { error };
  }
  handles.push(started.value);
  return { promise: started.value };
}

interface Settling {
  deadline: number;
  stopped: () => Stop | undefined;
  setStop: (why: Stop) => void;
  fail: (error: unknown) => DoneMessage;
  pending: Set<QuickJSDeferredPromise>;
  /** Hands the resolve of the next wait to whoever wakes it (a call's answer, the clock). */
  waiting: (resolve: () => void) => void;
  wake: () => void;
}

/** Runs the script's jobs until its promise settles, it stops at a limit, or it waits on nothing. */
async function settled(context: QuickJSContext, promise: QuickJSHandle, at: Settling): Promise<DoneMessage> {
  // A script that awaits a tool call leaves QuickJS idle: the worker's own clock ends it then.
  const timer = setTimeout(() => {
    at.setStop("timeout");
    at.wake();
  }, Math.max(0, at.deadline - Date.now()));
  try {
    for (;;) {
      const jobs = context.runtime.executePendingJobs();
      if (jobs.error) jobs.error.dispose();
      const state = context.getPromiseState(promise);
      if (state.type === "fulfilled") {
        const json = context.getString(state.value);
        state.value.dispose();
        return { type: "done", ok: true, json };
      }
      if (state.type === "rejected") {
        const error = context.dump(state.error);
        state.error.dispose();
        return at.fail(error);
      }
      if (at.stopped()) return at.fail(undefined);
      if (at.pending.size === 0) return at.fail({ name: "Error", message: "the script awaits a promise that nothing will settle" });
      await new Promise<void>((resolve) => at.waiting(resolve));
    }
  } finally {
    clearTimeout(timer);
  }
}

/** True when the WebAssembly memory has grown to within 2 MiB of its maximum: QuickJS ran out of room. */
function memoryFull(memoryMiB: number): boolean {
  const bytes = loaded?.memory.buffer.byteLength ?? 0;
  return bytes >= (INITIAL_PAGES / PAGES_PER_MIB + memoryMiB - 2) * MIB;
}
