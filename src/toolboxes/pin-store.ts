/**
 * workbench-lock.json, beside the configuration file: the pins of every toolbox's servers' tools,
 * one entry per toolbox, server and tool, keys sorted, mode 0600. One store per process, shared by
 * its sessions; other processes (another client's workbench, `approve`) write the same file, so it
 * is re-read when its text changed, written whole under a temporary name and renamed (the
 * platform's private createFile), and read back after a write: a write another process's rename
 * replaced is merged and made again, so that no process loses another's pins.
 */
import type { Tool } from "../protocol/sdk.ts";
import { messageOf } from "../protocol/errors.ts";
import { canonicalJson, type Pin, pinOf } from "./fingerprint.ts";

export const LOCK_FILE = "workbench-lock.json";
const VERSION = 1;
/** Writes that another process's write replaced, made again: bounded, with a short random wait. */
const WRITE_ATTEMPTS = 8;

export type ServerPins = Record<string, Pin>;
type Toolboxes = Record<string, Record<string, ServerPins>>;

/** The lock as last read: identity changes with each change, so views can keep what they computed. */
export interface LockSnapshot {
  /** False until the file was first read: nothing can be offered before. */
  loaded: boolean;
  /** The file exists but cannot be read or is not a lock file: every pinned server's tools are withheld. */
  error?: string;
  pinsOf(toolbox: string, server: string): ServerPins | undefined;
}

export interface LockFiles {
  readTextFile(path: string): Promise<string>;
  createFile(path: string, text: string, options: { overwrite: boolean; private?: boolean }): Promise<void>;
}

/** The lock file beside a configuration file. */
export function lockPathFor(configPath: string): string {
  const cut = Math.max(configPath.lastIndexOf("/"), configPath.lastIndexOf("\\"));
  return `${configPath.slice(0, cut + 1)}${LOCK_FILE}`;
}

export class PinStore {
  readonly path: string;
  readonly #files: LockFiles;
  readonly #say: (line: string) => void;
  /** The text last read: undefined before the first read, null for a file that is not there. */
  #text: string | null | undefined;
  #toolboxes: Toolboxes = {};
  #error?: string;
  #snapshot: LockSnapshot = { loaded: false, pinsOf: () => undefined };
  #reading?: Promise<void>;
  /** Writes of this process, one after the other. */
  #writes: Promise<unknown> = Promise.resolve();
  /** First pins this process could not write: kept for its own views, said once. */
  readonly #unwritten: Toolboxes = {};
  #saidUnwritten = false;

  constructor(path: string, files: LockFiles, say: (line: string) => void = () => {}) {
    this.path = path;
    this.#files = files;
    this.#say = say;
  }

  get snapshot(): LockSnapshot {
    return this.#snapshot;
  }

  /** Reads the file again if its text changed (concurrent callers share one read). */
  refresh(): Promise<void> {
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
        await this.#update(
          (toolboxes) => (((toolboxes[toolbox] ??= {})[server]) ??= pins),
          (toolboxes) => toolboxes[toolbox]?.[server] !== undefined,
        );
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
      const same = (a: Pin | undefined, b: Pin) => a?.sha256 === b.sha256;
      await this.#update(
        (toolboxes) => {
          const entry = (toolboxes[toolbox] ??= {})[server] ??= {};
          Object.assign(entry, pins);
          for (const name of forget) delete entry[name];
        },
        (toolboxes) => {
          const entry = toolboxes[toolbox]?.[server];
          return entry !== undefined && Object.entries(pins).every(([name, pin]) => same(entry[name], pin)) &&
            forget.every((name) => !Object.hasOwn(entry, name));
        },
      );
    });
  }

  #serial<T>(job: () => Promise<T>): Promise<T> {
    const run = this.#writes.then(job, job);
    this.#writes = run.catch(() => {});
    return run;
  }

  /** Changes the file as it is now, then reads it back until the change holds there. */
  async #update(change: (toolboxes: Toolboxes) => void, holds: (toolboxes: Toolboxes) => boolean): Promise<void> {
    for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
      await this.refresh();
      if (this.#error) throw new Error(this.#error);
      const next = structuredClone(this.#toolboxes);
      change(next);
      try {
        await this.#files.createFile(this.path, `${canonicalJson({ toolboxes: next, version: VERSION }, 2)}\n`, {
          overwrite: true,
          private: true,
        });
      } catch (error) {
        throw new Error(`Cannot write the lock file '${this.path}': ${messageOf(error)}`);
      }
      await this.refresh();
      if (holds(this.#toolboxes)) return;
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * attempt));
    }
    throw new Error(`Cannot write the lock file '${this.path}': other processes kept replacing it`);
  }

  async #read(): Promise<void> {
    let text: string | null;
    try {
      text = await this.#files.readTextFile(this.path);
    } catch (error) {
      if ((error as { name?: unknown } | null)?.name !== "NotFound") {
        this.#text = undefined;
        this.#error = `Cannot read the lock file '${this.path}': ${messageOf(error)}`;
        this.#publish();
        return;
      }
      text = null;
    }
    if (text === this.#text) return;
    this.#text = text;
    const parsed = text === null ? {} : parseLock(text);
    if (typeof parsed === "string") {
      this.#error = `Invalid lock file '${this.path}': ${parsed}; fix it or delete it to pin every tool again`;
      this.#toolboxes = {};
    } else {
      this.#error = undefined;
      this.#toolboxes = parsed;
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
