/**
 * A script's tool calls as they leave the sandbox, within a budget of bytes (issue 38). Each call's
 * arguments are copied out as JSON, parsed and queued for the server: 200 calls of 5 MB made at
 * once held over 3 GiB outside QuickJS's limit. Here a call is taken out only while the arguments
 * of the calls in flight are under MAX_CALL_BYTES; the others wait in order, as the script's own
 * values (its memory limit counts them), and are made into JSON when their turn comes. One call
 * larger than the whole budget goes alone.
 */
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle } from "quickjs-emscripten-core";

/** Bytes of arguments (JSON, UTF-16 units) a script's calls in flight may hold. */
export const MAX_CALL_BYTES = 4 * 1024 * 1024;

interface Waiting {
  server: string;
  name: string;
  /** The script's function that gives the arguments as JSON. */
  args: QuickJSHandle;
  deferred: QuickJSDeferredPromise;
}

export interface CallHost {
  /** `args` null: not copied out (see messages.ts, CallMessage). */
  call(server: string, name: string, args: string | null): Promise<string>;
}

export class CallBudget {
  readonly #context: QuickJSContext;
  readonly #host: CallHost;
  /** Every call not yet settled, the waiting ones too: the engine disposes of what is left. */
  readonly #pending: Set<QuickJSDeferredPromise>;
  readonly #settled: () => void;
  readonly #outOfMemory: () => void;
  /** The tools the script was given, and its maxCalls (see #copies). */
  readonly #given?: { servers: Record<string, string[]>; maxCalls: number };
  /** Calls that left the engine, copied or not: as the host counts them. */
  #sent = 0;
  readonly #waiting: Waiting[] = [];
  #held = 0;
  #disposed = false;

  constructor(
    context: QuickJSContext,
    host: CallHost,
    pending: Set<QuickJSDeferredPromise>,
    settled: () => void,
    outOfMemory: () => void,
    given?: { servers: Record<string, string[]>; maxCalls: number },
  ) {
    this.#given = given;
    this.#context = context;
    this.#host = host;
    this.#pending = pending;
    this.#settled = settled;
    this.#outOfMemory = outOfMemory;
  }

  /** Bytes of arguments of the calls in flight now. */
  get held(): number {
    return this.#held;
  }

  /** A call of the script: its promise, settled when the host answers. */
  add(server: string, name: string, args: QuickJSHandle): QuickJSHandle {
    const deferred = this.#context.newPromise();
    this.#pending.add(deferred);
    this.#waiting.push({ server, name, args: args.dup(), deferred });
    this.#pump();
    return deferred.handle;
  }

  /** The script ended: the calls still waiting are dropped (their promises go with the context). */
  dispose(): void {
    this.#disposed = true;
    for (const waiting of this.#waiting.splice(0)) if (waiting.args.alive) waiting.args.dispose();
  }

  #pump(): void {
    while (!this.#disposed && this.#waiting.length > 0 && this.#held < MAX_CALL_BYTES) this.#send(this.#waiting.shift()!);
  }

  #send(waiting: Waiting): void {
    const context = this.#context;
    const { deferred } = waiting;
    if (!this.#copies(waiting)) {
      waiting.args.dispose();
      return this.#out(waiting, null);
    }
    const made = context.callFunction(waiting.args, context.undefined);
    waiting.args.dispose();
    if (made.error) {
      // What JSON.stringify threw (a cycle, a BigInt) is the call's own failure.
      // Disposed after a turn (or with the others if the script ends first): add() may still
      // have to give the script its handle.
      deferred.reject(made.error);
      made.error.dispose();
      queueMicrotask(() => {
        this.#pending.delete(deferred);
        if (deferred.alive) deferred.dispose();
      });
      this.#settled();
      return;
    }
    const args = context.getString(made.value);
    made.value.dispose();
    this.#out(waiting, args);
  }

  /**
   * Whether a call's arguments are copied out of the engine: not for a tool the script was not given
   * (the host refuses it by its name), nor past maxCalls (the host stops the script): 200 calls of
   * 12 MB to a missing tool held 435 MiB in copies, each refused only once it was out.
   */
  #copies({ server, name }: Waiting): boolean {
    const given = this.#given;
    return !given || (this.#sent < given.maxCalls && Object.hasOwn(given.servers, server) && given.servers[server].includes(name));
  }

  /** The call leaves, its arguments held in the budget until it is answered. */
  #out(waiting: Waiting, args: string | null): void {
    const context = this.#context;
    const { deferred } = waiting;
    this.#sent++;
    const bytes = args?.length ?? 0;
    this.#held += bytes;
    this.#host.call(waiting.server, waiting.name, args).then((json) => {
      this.#held -= bytes;
      this.#pending.delete(deferred);
      if (deferred.alive) {
        try {
          // The result is copied into the engine's memory: one past the limit ends the script there.
          const value = context.newString(json);
          deferred.resolve(value);
          value.dispose();
          deferred.dispose();
        } catch {
          this.#outOfMemory();
        }
      }
      this.#pump();
      this.#settled();
    });
  }
}
