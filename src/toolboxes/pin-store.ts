/**
 * workbench-lock.json, beside the configuration file: the pins of every toolbox's servers' tools,
 * one entry per toolbox, server and tool, keys sorted, mode 0600. One store per process, shared by
 * its sessions; other processes (another client's workbench, `approve`) write the same file, so it
 * is taken again when its text changed, and each change is made to the file as it is then, by one
 * process at a time (file-mutex.ts), written whole under a temporary name and renamed (the
 * platform's private createFile): no process loses another's pins, no reader sees half a file.
 */
import type { Tool } from "../protocol/sdk.ts";
import { messageOf } from "../protocol/errors.ts";
import { canonicalJson, type Pin, pinOf } from "./fingerprint.ts";
import { type MutexFiles, whileHolding } from "./file-mutex.ts";

export const LOCK_FILE = "workbench-lock.json";
const VERSION = 1;
/**
 * How old the lock as last read may be for a call of a tool it offers. Reading it costs 30 to 90 µs
 * for 38 KB (5 servers of 10 tools) on the test machine, next to a call overhead of about 100 µs:
 * too much for every call. A listing, a first sight and a call of a withheld tool always read it
 * (an approval is seen at once); a call of an offered tool reads it at most this often.
 */
export const CALL_RECHECK_MS = 1_000;

export type ServerPins = Record<string, Pin>;
type Toolboxes = Record<string, Record<string, ServerPins>>;
/** A read of the file, or a write, numbered in the order it began. */
type Loaded = ({ text: string | null; toolboxes: Toolboxes } | { error: string }) & { seq: number };

/** The lock as last read: identity changes with each change, so views can keep what they computed. */
export interface LockSnapshot {
  /** False until the file was first read: nothing can be offered before. */
  loaded: boolean;
  /** The file exists but cannot be read or is not a lock file: every pinned server's tools are withheld. */
  error?: string;
  pinsOf(toolbox: string, server: string): ServerPins | undefined;
}


/** The lock file beside a configuration file. */
export function lockPathFor(configPath: string): string {
  const cut = Math.max(configPath.lastIndexOf("/"), configPath.lastIndexOf("\\"));
  return `${configPath.slice(0, cut + 1)}${LOCK_FILE}`;
}

export class PinStore {
  readonly path: string;
  readonly #files: MutexFiles;
  readonly #say: (line: string) => void;
  /** The text last read: undefined before the first read, null for a file that is not there. */
  #text: string | null | undefined;
  #toolboxes: Toolboxes = {};
  #error?: string;
  #snapshot: LockSnapshot = { loaded: false, pinsOf: () => undefined };
  #reading?: Promise<void>;
  /** When the file was last read (Date.now()), for refresh's maxAgeMs. */
  #readAt = -Infinity;
  /** Reads and writes in the order they began: one begun earlier never replaces what a later one took. */
  #began = 0;
  #taken = 0;
  /** Writes of this process, one after the other. */
  #writes: Promise<unknown> = Promise.resolve();
  /** First pins this process could not write: kept for its own views, said once. */
  readonly #unwritten: Toolboxes = {};
  #saidUnwritten = false;

  constructor(path: string, files: MutexFiles, say: (line: string) => void = () => {}) {
    this.path = path;
    this.#files = files;
    this.#say = say;
  }

  get snapshot(): LockSnapshot {
    return this.#snapshot;
  }

  /**
   * Reads the file again, and takes it if its text changed (concurrent callers share one read);
   * not when it was read less than `maxAgeMs` ago.
   */
  refresh(maxAgeMs = 0): Promise<void> {
    if (maxAgeMs > 0 && this.#reading === undefined && Date.now() - this.#readAt < maxAgeMs) return Promise.resolve();
    this.#reading ??= this.#read().finally(() => (this.#reading = undefined));
    return this.#reading;
  }

  /**
   * The first sight of a server's tools: pins all of them, unless the file (read again first)
   * pins the server already, whoever wrote it. A file that cannot be written keeps the pins for
   * this process only, and says so once.
   */
  pinServer(toolbox: string, server: string, tools: Tool[]): Promise<void> {
    const pins: ServerPins = Object.fromEntries(tools.map((tool) => [tool.name, pinOf(tool)]));
    return this.#serial(async () => {
      await this.refresh();
      if (this.#error || this.#snapshot.pinsOf(toolbox, server)) return;
      try {
        await this.#update((toolboxes) => (((toolboxes[toolbox] ??= {})[server]) ??= pins));
      } catch (error) {
        (this.#unwritten[toolbox] ??= {})[server] = pins;
        this.#publish();
        if (!this.#saidUnwritten) this.#say(`${messageOf(error)}; the pins are kept for this run only`);
        this.#saidUnwritten = true;
      }
    });
  }

  /** Records the tools' pins as they are now and forgets `forget`'s; throws when the file cannot be written. */
  approve(toolbox: string, server: string, pins: ServerPins, forget: string[] = []): Promise<void> {
    return this.#serial(async () => {
      await this.refresh();
      if (this.#error) throw new Error(this.#error);
      await this.#update((toolboxes) => {
        const entry = (toolboxes[toolbox] ??= {})[server] ??= {};
        // Defined, not assigned: a tool may be called "__proto__".
        for (const [name, pin] of Object.entries(pins)) Object.defineProperty(entry, name, { value: pin, enumerable: true, writable: true, configurable: true });
        for (const name of forget) delete entry[name];
      });
    });
  }

  #serial<T>(job: () => Promise<T>): Promise<T> {
    const run = this.#writes.then(job, job);
    this.#writes = run.catch(() => {});
    return run;
  }

  /**
   * Changes the file as it is now (read again while held, not as last taken: a read begun before
   * could predate another process's write), holding it against other processes' writes meanwhile.
   */
  async #update(change: (toolboxes: Toolboxes) => void): Promise<void> {
    let failure: string | undefined;
    try {
      await whileHolding(this.path, this.#files, async () => {
        const current = await this.#load();
        this.#take(current);
        if ("error" in current) return void (failure = current.error);
        const next = structuredClone(current.toolboxes);
        change(next);
        const text = `${canonicalJson({ toolboxes: next, version: VERSION }, 2)}\n`;
        await this.#files.createFile(this.path, text, { overwrite: true, private: true });
        this.#take({ text, toolboxes: next, seq: ++this.#began });
      });
    } catch (error) {
      throw new Error(`Cannot write the lock file '${this.path}': ${messageOf(error)}`);
    }
    if (failure !== undefined) throw new Error(failure);
  }

  async #read(): Promise<void> {
    this.#take(await this.#load());
  }

  /** The file's text and pins (none for a file not there), or what is wrong with it. */
  async #load(): Promise<Loaded> {
    const seq = ++this.#began;
    this.#readAt = Date.now();
    let text: string | null;
    try {
      text = await this.#files.readTextFile(this.path);
    } catch (error) {
      if ((error as { name?: unknown } | null)?.name !== "NotFound") {
        return { error: `Cannot read the lock file '${this.path}': ${messageOf(error)}`, seq };
      }
      text = null;
    }
    if (text !== null && text === this.#text) return { text, toolboxes: this.#toolboxes, seq };
    const parsed = text === null ? {} : parseLock(text);
    if (typeof parsed === "string") {
      return { error: `Invalid lock file '${this.path}': ${parsed}; fix it or delete it to pin every tool again`, seq };
    }
    return { text, toolboxes: parsed, seq };
  }

  /** What was read or written becomes the snapshot, if it differs from the last. */
  #take(loaded: Loaded): void {
    if (loaded.seq < this.#taken) return;
    this.#taken = loaded.seq;
    if ("error" in loaded) {
      if (this.#error === loaded.error) return;
      this.#text = undefined;
      this.#error = loaded.error;
      this.#toolboxes = {};
    } else {
      if (this.#snapshot.loaded && this.#error === undefined && loaded.text === this.#text) return;
      this.#text = loaded.text;
      this.#error = undefined;
      this.#toolboxes = loaded.toolboxes;
    }
    this.#publish();
  }

  #publish(): void {
    const toolboxes = this.#toolboxes;
    const unwritten = this.#unwritten;
    const error = this.#error;
    this.#snapshot = {
      loaded: true,
      ...(error !== undefined && { error }),
      pinsOf: (toolbox, server) => toolboxes[toolbox]?.[server] ?? unwritten[toolbox]?.[server],
    };
  }
}

/** The pins of a lock file's text, or what is wrong with it. */
function parseLock(text: string): Toolboxes | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "not valid JSON";
  }
  const isObject = (item: unknown): item is Record<string, unknown> =>
    typeof item === "object" && item !== null && !Array.isArray(item);
  if (!isObject(value) || value.version !== VERSION || !isObject(value.toolboxes)) {
    return `expected {"toolboxes": {...}, "version": ${VERSION}}`;
  }
  for (const [toolbox, servers] of Object.entries(value.toolboxes)) {
    if (!isObject(servers)) return `toolbox '${toolbox}' is not an object`;
    for (const [server, tools] of Object.entries(servers)) {
      if (!isObject(tools)) return `server '${toolbox}/${server}' is not an object`;
      for (const [tool, pin] of Object.entries(tools)) {
        if (!isObject(pin) || typeof pin.sha256 !== "string") return `tool '${toolbox}/${server}/${tool}' has no sha256`;
      }
    }
  }
  return value.toolboxes as Toolboxes;
}
