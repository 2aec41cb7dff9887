/**
 * The listing cache: each server's tool list as it was last listed (the offer applies toolFilters), so
 * that the next start can tell the model how many tools a toolbox has, and what they cost, without
 * spawning anything. One file per server, named by a SHA-256 of its resolved definition (command,
 * args, env, cwd, toolFilters): a changed definition misses, and secrets never appear in clear.
 * A cache that cannot be read or written is ignored with one stderr line, then left alone.
 * Files also keep the server's prompts, resources and resource templates, so that prompts/list and
 * resources/list are answered without starting anything (and its skills, when it declares the
 * Skills extension, for skills/list); a file from before has tools only, and
 * then those lists are unknown until the server connects.
 * Some servers list tools by what the client declares (server-everything adds its elicitation and
 * sampling tools): a file keeps the list once per set of capabilities the server was given (the
 * last few), so that a client is told the count it will see (see toolbox-figures.ts).
 * Each server definition's protocol era has its own small file (era-<hash>.json), so that a
 * 2025-11-25 server is not probed with server/discover again at the next start.
 */
import type { ClientCapabilities, Tool } from "../protocol/sdk.ts";
import { isRemote, type ServerConfig } from "../config/index.ts";
import type { Platform } from "../platform/types.ts";
import { NAME } from "../protocol/version.ts";
import { messageOf } from "../protocol/errors.ts";
import { sha256Hex } from "./sha256.ts";
import type { ServerListing } from "../downstream/listing.ts";
import { type CacheEntry, type CacheFile, FORMAT, parseCacheFile } from "./listing-file.ts";
import { type Store, storeKey } from "../store/store.ts";
import { sharingKey } from "../config/definition.ts";
import { type Era, LEGACY_VERSION, MODERN_VERSION } from "../protocol/wire.ts";
import { canonicalJson } from "./canonical-json.ts";
import { LOCAL_CLIENT_NAME } from "../config/client-variable.ts";

/** Set to use another directory (tests, sandboxes); empty is unset. */
export const CACHE_DIR_VARIABLE = "WORKBENCH_CACHE_DIR";
export type { CacheEntry };
/** How long a listing kept in a shared store outlives its last write (a server listed again renews it). */
const SHARED_TTL_MS = 30 * 24 * 60 * 60_000;
/** The names readOwn and writeOwn accept: a plain file name, never a path. */
const OWN_FILE = /^[a-z][a-z0-9-]{0,80}\.json$/;
/** How many capability sets a file keeps a tool list for: a user has a client or two. */
const MAX_LISTS = 4;

export type CacheHost = Pick<Platform, "env" | "os" | "readTextFile" | "writeTextFile" | "makeDirectory" | "writeStderr">;

export class ListingCache {
  readonly dir: string | undefined;
  readonly #host: CacheHost;
  /** What each file holds (or was last written with), so that an unchanged list is not written again. */
  readonly #known = new Map<string, string>();
  /** Each server's file, hashed once: a restarted server is remembered again. */
  readonly #paths = new WeakMap<ServerConfig, string>();
  #disabled = false;
  #dirReady?: Promise<void>;
  /** Each definition's era as found or read in this run, by file path: known at once to a restart. */
  readonly #eras = new Map<string, Era>();
  /** Each file's lists by capability key, as read or last written: a new list keeps the others. */
  readonly #lists = new Map<string, Record<string, Tool[]>>();
  /** Writes not ended yet, for flush(). */
  readonly #writing = new Set<Promise<void>>();
  /**
   * A store shared by replicas (issue 47 §3): each listing and era file is kept there too, under its
   * file's name, and one missing here is read from there, so that a replica that never started a
   * server knows its listing. The search's own files stay on this machine.
   */
  #shared?: Store;

  constructor(host: CacheHost) {
    this.#host = host;
    this.dir = cacheDirectory(host.env, host.os);
  }

  /** From now on, listings go to `store` too and are read from it when missing here: when it is shared. */
  share(store: Store): void {
    if (store.shared) this.#shared = store;
  }

  /**
   * The server's tools as last listed, or undefined when unknown (or the cache is unusable).
   * `client`: the client whose own process listed them (see #pathOf); none for the local user's.
   */
  async read(server: ServerConfig, client?: string): Promise<Tool[] | undefined> {
    return (await this.readEntry(server, client))?.tools;
  }

  /** The server's tools and, when known, its prompts, resources and templates as last listed. */
  readEntry(server: ServerConfig, client?: string): Promise<CacheEntry | undefined> {
    return this.#readEntry(server, true, client);
  }

  /** `report`: a file that cannot be read disables the cache (not so before a write, which says why itself). */
  async #readEntry(server: ServerConfig, report: boolean, client?: string): Promise<CacheEntry | undefined> {
    if (!this.dir || this.#disabled) return undefined;
    const path = this.#pathOf(server, client);
    let text: string | undefined;
    try {
      text = await this.#host.readTextFile(path);
    } catch (error) {
      if (report && (error as { name?: unknown } | null)?.name !== "NotFound") this.#ignore(`cannot read '${path}': ${messageOf(error)}`);
      text = await this.#fromShared(path);
      if (text === undefined) return undefined;
    }
    const entry = parseCacheFile(text);
    if (entry) {
      this.#known.set(path, text);
      this.#lists.set(path, entry.lists);
    }
    return entry;
  }

  /**
   * Keeps a server's freshly listed tools, made for `declared` (capabilityKey of what the server
   * was given), next to the lists made for other capabilities; never throws.
   */
  remember(server: ServerConfig, tools: Tool[], listing?: ServerListing, declared?: string, client?: string): Promise<void> {
    // Counted from the start, not from the write: a flush while the file is still being read
    // (to keep the lists made for other capabilities) waits for it too.
    return this.#track(this.#remember(server, tools, listing, declared, client));
  }

  async #remember(server: ServerConfig, tools: Tool[], listing?: ServerListing, declared?: string, client?: string): Promise<void> {
    if (!this.dir || this.#disabled) return;
    const path = this.#pathOf(server, client);
    if (!this.#lists.has(path)) await this.#readEntry(server, false, client);
    // The current list last: the oldest of the others go first past MAX_LISTS.
    const lists = Object.entries(this.#lists.get(path) ?? {}).filter(([key]) => key !== declared);
    const others = Object.fromEntries(lists.slice(Math.max(0, lists.length - (MAX_LISTS - 1))));
    this.#lists.set(path, declared === undefined ? others : { ...others, [declared]: tools });
    const file: CacheFile = { format: FORMAT, tools, ...listing, ...(declared !== undefined && { listedFor: declared }), others };
    const text = JSON.stringify(file);
    if (this.#known.get(path) === text) return;
    this.#known.set(path, text);
    this.#toShared(path, text);
    await this.#write(path, text);
  }

  /** What a shared store keeps of the file at `path`; undefined without one, or when it keeps none or cannot be read. */
  async #fromShared(path: string): Promise<string | undefined> {
    return await this.#shared?.get(sharedKey(path)).catch(() => undefined);
  }

  /** Counted among the writes (flush waits for it); a store that fails costs nothing but the copy. */
  #toShared(path: string, text: string): void {
    if (this.#shared) void this.#track(this.#shared.set(sharedKey(path), text, SHARED_TTL_MS).catch(() => {}));
  }

  /** Resolves once every write begun so far has ended: a command that exits next loses none. */
  async flush(): Promise<void> {
    while (this.#writing.size > 0) await Promise.allSettled([...this.#writing]);
  }

  /** The era the server definition was last found to speak, if known. */
  async eraOf(server: ServerConfig): Promise<Era | undefined> {
    const path = this.#eraPath(server);
    const known = this.#eras.get(path);
    if (known || !this.dir || this.#disabled) return known;
    try {
      const text = await this.#host.readTextFile(path).catch(async (error) => (await this.#fromShared(path)) ?? Promise.reject(error));
      const era = (JSON.parse(text) as { era?: unknown } | null)?.era;
      if (era !== MODERN_VERSION && era !== LEGACY_VERSION) return undefined;
      this.#eras.set(path, era);
      return era;
    } catch {
      return undefined;
    }
  }

  /**
   * A file of another part kept beside the listings, by its name (`search-choices-<hash>.json`, the
   * tool search's learned choices): its text, or undefined when it is not there or not readable.
   */
  async readOwn(name: string): Promise<string | undefined> {
    if (!this.dir || !OWN_FILE.test(name)) return undefined;
    try {
      return await this.#host.readTextFile(`${this.dir}${this.#host.os === "windows" ? "\\" : "/"}${name}`);
    } catch {
      return undefined;
    }
  }

  /** Writes such a file; never throws (a failure is logged once, as the cache's are). */
  writeOwn(name: string, text: string): Promise<void> {
    if (!OWN_FILE.test(name)) return Promise.resolve();
    return this.#write(`${this.dir ?? ""}${this.#host.os === "windows" ? "\\" : "/"}${name}`, text);
  }

  /** Keeps the era a probe found; never throws, never delays the caller. */
  rememberEra(server: ServerConfig, era: Era): void {
    const path = this.#eraPath(server);
    if (this.#eras.get(path) === era) return;
    this.#eras.set(path, era);
    const text = JSON.stringify({ format: FORMAT, era });
    this.#toShared(path, text);
    void this.#write(path, text);
  }

  #eraPath(server: ServerConfig): string {
    const separator = this.#host.os === "windows" ? "\\" : "/";
    return `${this.dir ?? ""}${separator}era-${sha256Hex(sharingKey(server))}.json`;
  }

  #write(path: string, text: string): Promise<void> {
    const dir = this.dir;
    if (!dir || this.#disabled) return Promise.resolve();
    const writing = (async () => {
      try {
        this.#dirReady ??= this.#host.makeDirectory(dir);
        await this.#dirReady;
        await this.#host.writeTextFile(path, text);
      } catch (error) {
        this.#ignore(`cannot write '${path}': ${messageOf(error)}`);
      }
    })();
    return this.#track(writing);
  }

  /** `work` counted among the writes flush() waits for, until it ends. */
  #track(work: Promise<void>): Promise<void> {
    this.#writing.add(work);
    return work.finally(() => this.#writing.delete(work));
  }

  /**
   * One file per definition, and per client for a server whose process is the client's own (not
   * `"share": "all"`): what it lists (a client's notes, files, resources) is that client's, and is
   * never read for another, live or after a restart. The local user's files have no client part.
   */
  #pathOf(server: ServerConfig, client?: string): string {
    const separator = this.#host.os === "windows" ? "\\" : "/";
    if (client !== undefined && client !== LOCAL_CLIENT_NAME && server.share !== "all") {
      return `${this.dir}${separator}${sha256Hex(JSON.stringify([definitionKey(server), client]))}.json`;
    }
    let path = this.#paths.get(server);
    if (!path) {
      path = `${this.dir}${separator}${definitionKey(server)}.json`;
      this.#paths.set(server, path);
    }
    return path;
  }

  /** One line, once: the cache only saves work, its failures must not fill the log. */
  #ignore(reason: string): void {
    if (this.#disabled) return;
    this.#disabled = true;
    this.#host.writeStderr(`${NAME}: Listing cache ignored: ${reason}\n`);
  }
}

/**
 * WORKBENCH_CACHE_DIR, else the platform's per-user cache: %LOCALAPPDATA%\mcp-workbench\cache,
 * ~/Library/Caches/mcp-workbench, $XDG_CACHE_HOME/mcp-workbench or ~/.cache/mcp-workbench.
 * Undefined when the environment names none (then there is no cache).
 */
export function cacheDirectory(env: Record<string, string | undefined>, os: string): string | undefined {
  if (env[CACHE_DIR_VARIABLE]) return env[CACHE_DIR_VARIABLE];
  if (os === "windows") return env.LOCALAPPDATA ? `${env.LOCALAPPDATA}\\${NAME}\\cache` : undefined;
  if (os === "darwin") return env.HOME ? `${env.HOME}/Library/Caches/${NAME}` : undefined;
  // XDG: a relative XDG_CACHE_HOME is invalid and ignored.
  if (env.XDG_CACHE_HOME?.startsWith("/")) return `${env.XDG_CACHE_HOME}/${NAME}`;
  return env.HOME ? `${env.HOME}/.cache/${NAME}` : undefined;
}

/** Hex SHA-256 of what decides a server's tool list; the only trace of its env values on disk. */
export function definitionKey(server: ServerConfig): string {
  const definition = isRemote(server)
    ? JSON.stringify([server.transport, server.url, Object.entries(server.headers).sort(), server.toolFilters ?? null])
    : JSON.stringify([server.command, server.args, Object.entries(server.env).sort(), server.cwd ?? null, server.toolFilters ?? null]);
  return sha256Hex(definition);
}

/**
 * What identifies the capabilities a server was given, as far as its tool list may depend on
 * them: their JSON with keys sorted at every level.
 */
export function capabilityKey(capabilities: ClientCapabilities): string {
  return canonicalJson(capabilities);
}

/** A listing file's key in a shared store: its name (a SHA-256 of the definition, and of the client for a client's own). */
function sharedKey(path: string): string {
  return storeKey("listings", "file", path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1));
}
