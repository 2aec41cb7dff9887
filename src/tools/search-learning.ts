/**
 * Tool search learning from use (issue 53), kept per configuration file: the choices (search/
 * choices.ts) in the listing cache's folder as `search-choices-<hash of the file's path>.json`, on
 * this machine only, shared by the sessions of one process that serve that file. Off with
 * `"toolSearch": {"learn": false}`. The call path gives it one judgement through
 * rememberSearchChoice: the session's last search request and the tool called after it.
 */
import type { WorkbenchConfig } from "../config/index.ts";
import type { ListingCache } from "../cache/listing-cache.ts";
import type { ChoiceMemory } from "../search/choices.ts";
import { sha256Hex } from "../cache/sha256.ts";

/** A tool as the search's choices name it: toolbox, server and name, joined by NUL. */
export const choiceKey = (tool: { toolbox: string; server: string; name: string }): string =>
  `${tool.toolbox}\u0000${tool.server}\u0000${tool.name}`;

/** True when the configuration lets search learn from use: on with search, off with `"learn": false`. */
export function learnsFromUse(config: WorkbenchConfig): boolean {
  return config.toolSearch === true || (typeof config.toolSearch === "object" && config.toolSearch.learn !== false);
}

export class SearchLearning {
  readonly #cache?: ListingCache;
  readonly #file: string;
  #memory?: Promise<ChoiceMemory>;
  #saving = false;
  #again = false;

  constructor(cache: ListingCache | undefined, configPath: string) {
    this.#cache = cache;
    this.#file = `search-choices-${sha256Hex(configPath).slice(0, 32)}.json`;
  }

  /** The choices, read from the file the first time. */
  memory(): Promise<ChoiceMemory> {
    return this.#memory ??= (async () => {
      const { ChoiceMemory } = await import("../search/choices.ts");
      const text = await this.#cache?.readOwn(this.#file);
      let saved: unknown;
      try {
        saved = text === undefined ? [] : JSON.parse(text).choices;
      } catch {
        saved = [];
      }
      return new ChoiceMemory(Array.isArray(saved) ? saved : []);
    })();
  }

  /** Remembers a judgement and writes the file (one write at a time, the last state wins). */
  async remember(request: string, tool: string): Promise<void> {
    const memory = await this.memory();
    if (memory.remember(request, tool)) await this.#save(memory);
  }

  async #save(memory: ChoiceMemory): Promise<void> {
    if (!this.#cache) return;
    if (this.#saving) {
      this.#again = true;
      return;
    }
    this.#saving = true;
    try {
      do {
        this.#again = false;
        await this.#cache.writeOwn(this.#file, JSON.stringify({ format: 1, choices: memory.toJSON() }));
      } while (this.#again);
    } finally {
      this.#saving = false;
    }
  }
}

/** One learning per configuration file and cache in this process: sessions of one file learn together. */
const learnings = new WeakMap<ListingCache | object, Map<string, SearchLearning>>();
const NO_CACHE = {};

export function searchLearningFor(cache: ListingCache | undefined, configPath: string): SearchLearning {
  const key = cache ?? NO_CACHE;
  let byPath = learnings.get(key);
  if (!byPath) learnings.set(key, (byPath = new Map()));
  let learning = byPath.get(configPath);
  if (!learning) byPath.set(configPath, (learning = new SearchLearning(cache, configPath)));
  return learning;
}

/**
 * The one hook in the call path: a tool call that succeeded right after a search is the model's
 * judgement of which tool that request wanted. `lastSearch` is the session's last search request
 * (taken, so one search gives one judgement; undefined: no search since, or learning off).
 * Never throws and never delays the call.
 */
export function rememberSearchChoice(
  lastSearch: string | undefined,
  tool: { toolbox: string; server: string; name: string },
  learning: SearchLearning | undefined,
): void {
  if (lastSearch === undefined || learning === undefined) return;
  void learning.remember(lastSearch, choiceKey(tool)).catch(() => {});
}
