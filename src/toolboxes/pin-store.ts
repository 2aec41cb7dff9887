/**
 * The lock file, beside the configuration file and named after it (lockPathFor): the pins of every toolbox's servers' tools,
 * one entry per toolbox, server and tool, and under `texts` those of their prompts, resources,
 * templates and instructions (see offer.ts), keys sorted, mode 0600. One store per process, shared by
 * its sessions; other processes (another client's workbench, `approve`) write the same file, so it
 * is taken again when its text changed, and each change is made to the file as it is then, by one
 * process at a time (file-mutex.ts), written whole under a temporary name and renamed (the
 * platform's private createFile): no process loses another's pins, no reader sees half a file.
 */
import type { Tool } from "../protocol/sdk.ts";
import { messageOf } from "../protocol/errors.ts";
import { pinOf } from "./fingerprint.ts";
import { type MutexFiles, whileHolding } from "./file-mutex.ts";
import { emptyLock, keptOf, type Lock, lockText, own, parseLock, placesOf } from "./lock-format.ts";
import { type ServerPins, setDefinition, setPins } from "./lock-format.ts";

export type { ServerPins };
export { LOCK_FILE, lockPathFor } from "./lock-path.ts";
import type { LegacyLock, PinStoreOptions } from "./lock-path.ts";

/**
 * How old the lock as last read may be for a call of a tool it offers. Reading it costs 30 to 90 µs
 * for 38 KB (5 servers of 10 tools) on the test machine, next to a call overhead of about 100 µs:
 * too much for every call. A listing, a first sight and a call of a withheld tool always read it
 * (an approval is seen at once); a call of an offered tool reads it at most this often.
 */
export const CALL_RECHECK_MS = 1_000;

/** A read of the file, or a write, numbered in the order it began. */
type Loaded = ({ text: string | null; lock: Lock } | { error: string }) & { seq: number };

/** Another toolbox's name for the same server definition: its pins are this one's too. */
export interface PinPlace {
  toolbox: string;
  server: string;
}

/** The lock as last read: identity changes with each change, so views can keep what they computed. */
export interface LockSnapshot {
  /** False until the file was first read: nothing can be offered before. */
  loaded: boolean;
  /** The file exists but cannot be read or is not a lock file: every pinned server's tools are withheld. */
  error?: string;
  pinsOf(toolbox: string, server: string): ServerPins | undefined;
  /** The pins of the server's other texts, by textKey; undefined before they were first seen. */
  textsOf(toolbox: string, server: string): ServerPins | undefined;
  /** The digest of the definition a place's pins were made for (definitionDigest); undefined in files from before. */
  definitionOf(toolbox: string, server: string): string | undefined;
  /** Every place whose pins were made for this definition, under any name it had. */
  placesOf(definition: string): PinPlace[];
}

export class PinStore {
  readonly path: string;
  readonly configFile?: string;
  readonly #legacy?: LegacyLock;
  readonly #files: MutexFiles;
  readonly #say: (line: string) => void;
  /** The text last read: undefined before the first read, null for a file that is not there. */
  #text: string | null | undefined;
  #lock: Lock = emptyLock();
  #error?: string;
  #snapshot: LockSnapshot = {
    loaded: false,
    pinsOf: () => undefined,
    textsOf: () => undefined,
    definitionOf: () => undefined,
    placesOf: () => [],
  };
  #reading?: Promise<void>;
  /** When the file was last read (Date.now()), for refresh's maxAgeMs. */
  #readAt = -Infinity;
  /** Reads and writes in the order they began: one begun earlier never replaces what a later one took. */
  #began = 0;
  #taken = 0;
  /** Writes of this process, one after the other. */
  #writes: Promise<unknown> = Promise.resolve();
  /** First pins this process could not write: kept for its own views, said once. */
  readonly #unwritten: Lock = emptyLock();
  #saidUnwritten = false;
  /** The file's text when a write last failed (see addPins). */
  #failedOn: string | null | undefined;

  constructor(path: string, files: MutexFiles, say: (line: string) => void = () => {}, options: PinStoreOptions = {}) {
    this.path = path;
    this.configFile = options.configFile;
    this.#legacy = options.legacy;
    this.#files = files;
    this.#say = say;
  }

  get snapshot(): LockSnapshot {
    return this.#snapshot;
  }

  /** True when refresh(maxAgeMs) would not read: the file was read less than `maxAgeMs` ago, and no read is under way. */
  fresh(maxAgeMs: number): boolean {
    return maxAgeMs > 0 && this.#reading === undefined && Date.now() - this.#readAt < maxAgeMs;
  }

  /**
   * Reads the file again, and takes it if its text changed (concurrent callers share one read);
   * not when it was read less than `maxAgeMs` ago.
   */
  refresh(maxAgeMs = 0): Promise<void> {
    if (this.fresh(maxAgeMs)) return Promise.resolve();
    this.#reading ??= this.#read().finally(() => (this.#reading = undefined));
    return this.#reading;
  }

  /**
   * The first sight of a server's tools (and, apart, of its other texts): pins all of them, unless
   * the file (read again first) pins the server already, whoever wrote it. Pins belong to the
   * server definition: when another toolbox's name for the same definition (`same`), or a name it
   * had before a rename (`definition`, see lock-format.ts), is pinned, its pins are copied, not
   * what is listed now, so that a toolbox opened or renamed after a change does not approve it.
   * The definition is recorded with the pins. A file that cannot be written keeps the pins for
   * this process only, and says so once.
   */
  pinServer(toolbox: string, server: string, tools: Tool[], texts?: ServerPins, same: PinPlace[] = [], definition?: string): Promise<void> {
    return this.#serial(async () => {
      await this.refresh();
      const lock = this.#snapshot;
      if (this.#error) return;
      const places = [...same, ...(definition === undefined ? [] : lock.placesOf(definition))]
        .filter((place) => place.toolbox !== toolbox || place.server !== server);
      const first = <T>(read: (place: PinPlace) => T | undefined) => places.map(read).find((found) => found !== undefined);
      const change: Partial<Record<"toolboxes" | "texts", ServerPins>> = {};
      if (!lock.pinsOf(toolbox, server)) {
        change.toolboxes = first((place) => lock.pinsOf(place.toolbox, place.server)) ??
          Object.fromEntries(tools.map((tool) => [tool.name, pinOf(tool)]));
      }
      if (texts && !lock.textsOf(toolbox, server)) change.texts = first((place) => lock.textsOf(place.toolbox, place.server)) ?? texts;
      // Recorded where none is (a first sight, a lock from before): a write per mismatch would be a write per call.
      const record = definition !== undefined && lock.definitionOf(toolbox, server) === undefined;
      if (!change.toolboxes && !change.texts && !record) return;
      const apply = (next: Lock) => {
        for (const key of ["toolboxes", "texts"] as const) if (change[key]) ((next[key][toolbox] ??= {})[server]) ??= change[key]!;
        if (record) setDefinition(next, toolbox, server, definition);
      };
      await this.#update(apply).catch((error) => this.#keepUnwritten(apply, error));
    });
  }

  /** Records the tools' pins as they are now and forgets `forget`'s; throws when the file cannot be written. */
  approve(
    toolbox: string,
    server: string,
    pins: ServerPins,
    forget: string[] = [],
    texts?: { pins: ServerPins; forget: string[] },
    definition?: string,
  ): Promise<void> {
    return this.#serial(async () => {
      await this.refresh();
      if (this.#error) throw new Error(this.#error);
      await this.#update((lock) => {
        setPins(lock.toolboxes, toolbox, server, pins, forget);
        if (texts) setPins(lock.texts, toolbox, server, texts.pins, texts.forget);
        if (definition !== undefined) setDefinition(lock, toolbox, server, definition);
      });
    });
  }

  /**
   * Pins texts seen for the first time on a server already pinned, without asking: a resource new
   * to a listing (resources come and go as a server works), a title on a tool pinned before titles
   * were; forgets the pins of resources no longer listed past a bound (see offer.ts). What the
   * file already pins is kept. Not written when the file cannot be read.
   */
  addPins(toolbox: string, server: string, pins: { tools?: ServerPins; texts?: ServerPins; forget?: string[] }): Promise<void> {
    return this.#serial(async () => {
      await this.refresh();
      // Not tried again on the file a write failed on: a call would otherwise try (and fail) each time.
      if (this.#error || (this.#failedOn !== undefined && this.#failedOn === this.#text)) return;
      const apply = (lock: Lock) => {
        if (pins.tools) setPins(lock.toolboxes, toolbox, server, pins.tools, []);
        if (pins.texts || pins.forget) setPins(lock.texts, toolbox, server, pins.texts ?? {}, pins.forget ?? [], true);
      };
      await this.#update(apply).catch((error) => this.#keepUnwritten(apply, error));
    });
  }

  /** Pins this process could not write are kept for its own views; said once. */
  #keepUnwritten(apply: (lock: Lock) => void, error: unknown): void {
    this.#failedOn = this.#text;
    apply(this.#unwritten);
    this.#publish();
    if (!this.#saidUnwritten) this.#say(`${messageOf(error)}; the pins are kept for this run only`);
    this.#saidUnwritten = true;
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
  async #update(change: (lock: Lock) => void): Promise<void> {
    let failure: string | undefined;
    try {
      await whileHolding(this.path, this.#files, async () => {
        const current = await this.#load();
        this.#take(current);
        if ("error" in current) return void (failure = current.error);
        const next = structuredClone(current.lock);
        change(next);
        const text = lockText(next);
        await this.#files.createFile(this.path, text, { overwrite: true, private: true });
        this.#take({ text, lock: next, seq: ++this.#began });
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
    const own = await this.#loadFile(this.path, seq);
    if (!this.#legacy || !("text" in own) || own.text !== null) return own;
    // Not there yet: the folder's shared lock of before stands in for it, this file's entries only.
    const legacy = await this.#loadFile(this.#legacy.path, seq, "\u0000legacy\u0000");
    if (!("lock" in legacy) || legacy.text === null || legacy.lock === this.#lock) return legacy;
    return { ...legacy, lock: keptOf(legacy.lock, this.#legacy.keep) };
  }

  /** One file's text and pins; `mark` keeps a stand-in's text apart from the file's own. */
  async #loadFile(path: string, seq: number, mark = ""): Promise<Loaded> {
    let text: string | null;
    try {
      text = await this.#files.readTextFile(path);
    } catch (error) {
      if ((error as { name?: unknown } | null)?.name !== "NotFound") {
        return { error: `Cannot read the lock file '${path}': ${messageOf(error)}`, seq };
      }
      text = null;
    }
    if (text !== null && mark + text === this.#text) return { text: mark + text, lock: this.#lock, seq };
    const parsed = text === null ? emptyLock() : parseLock(text);
    if (typeof parsed === "string") {
      return { error: `Invalid lock file '${path}': ${parsed}; fix it or delete it to pin every tool again`, seq };
    }
    return { text: text === null ? null : mark + text, lock: parsed, seq };
  }

  /** What was read or written becomes the snapshot, if it differs from the last. */
  #take(loaded: Loaded): void {
    if (loaded.seq < this.#taken) return;
    this.#taken = loaded.seq;
    if ("error" in loaded) {
      if (this.#error === loaded.error) return;
      this.#text = undefined;
      this.#error = loaded.error;
      this.#lock = emptyLock();
    } else {
      if (this.#snapshot.loaded && this.#error === undefined && loaded.text === this.#text) return;
      this.#text = loaded.text;
      this.#error = undefined;
      this.#lock = loaded.lock;
    }
    this.#publish();
  }

  #publish(): void {
    const lock = this.#lock;
    const { toolboxes, texts, definitions } = lock;
    const unwritten = this.#unwritten;
    const error = this.#error;
    const recorded = (from: Lock["definitions"], toolbox: string, server: string) =>
      Object.hasOwn(from, toolbox) && Object.hasOwn(from[toolbox], server) ? from[toolbox][server] : undefined;
    // What this process could not write counts first: it is what this process last meant.
    const definitionOf = (toolbox: string, server: string) =>
      recorded(unwritten.definitions, toolbox, server) ?? recorded(definitions, toolbox, server);
    this.#snapshot = {
      loaded: true,
      ...(error !== undefined && { error }),
      pinsOf: (toolbox, server) => own(toolboxes, toolbox, server) ?? own(unwritten.toolboxes, toolbox, server),
      textsOf: (toolbox, server) => own(texts, toolbox, server) ?? own(unwritten.texts, toolbox, server),
      definitionOf,
      placesOf: (definition) => [...placesOf(lock, definition), ...placesOf(unwritten, definition)],
    };
  }
}
