/**
 * The session's kept results (issue 28): what a result cut to maxResultTokens left out, read on
 * with use_tool's `workbench` `read_result`. Bounded two ways so that a session that never reads on
 * holds nothing for long: at most MAX_BYTES in all (the oldest results go first), and each result
 * for MAX_AGE_MS after it was kept or last read.
 */
import type { ContentBlock } from "../protocol/sdk.ts";

/** 64 MiB of strings at two bytes a character (what a JavaScript string may take). */
export const MAX_BYTES = 64 * 1024 * 1024;
/** 30 minutes: a model reads on within its turn, or soon after. */
export const MAX_AGE_MS = 30 * 60 * 1000;
/** After this many bytes of results forgotten, `collect` is called (see StoreLimits.collect). */
export const COLLECT_AFTER_BYTES = 4 * 1024 * 1024;

/** One kept result: its items in order (a text item for structuredContent last, when it had one). */
export interface KeptResult {
  id: string;
  /** The toolbox its call was made in: read_result answers in that toolbox only. */
  toolbox: string;
  /** The cap its first page was cut to, in tokens: each later page is cut to it too. */
  limit: number;
  items: ContentBlock[];
  /** What `items` lost to MAX_BYTES at the end, in positions (see result-pages.ts). */
  dropped: number;
  /** Where each item starts, in positions, and where the last ends. */
  starts: number[];
  bytes: number;
  touched: number;
}

export interface StoreLimits {
  maxBytes: number;
  maxAgeMs: number;
  now: () => number;
  /**
   * Gives back the memory of forgotten results (a full collection), called after every
   * COLLECT_AFTER_BYTES of them: a session that keeps paging large results pushes out one for each
   * it keeps, and the runtime's collector left those strings for later (issue 54: 287 to 401 MiB
   * at the peak for 300 results of 1 MiB; 224 to 262 collecting after every 16 MiB, 200 after 4).
   */
  collect?: () => void;
}

/** The length of an item in positions: a text counts its characters (UTF-16 units), any other item 1. */
function itemLength(item: ContentBlock): number {
  return item.type === "text" ? item.text.length : 1;
}

function itemBytes(item: ContentBlock): number {
  return 2 * (item.type === "text" ? item.text.length : JSON.stringify(item).length);
}

/**
 * What a session's kept results are to the tools that keep and read them (see
 * upstream/session-state.ts): this process's ResultStore answers at once, a store shared by
 * replicas (stored-results.ts) later; the tools await either.
 */
export interface KeptResults {
  keep(toolbox: string, limit: number, items: readonly ContentBlock[]): KeptResult | Promise<KeptResult>;
  get(id: string): KeptResult | undefined | Promise<KeptResult | undefined>;
}

/** A result's items as a store of at most `maxBytes` keeps them: what exceeds the bound cut from the end. */
export function fitted(items: readonly ContentBlock[], maxBytes: number): Pick<KeptResult, "items" | "dropped" | "starts" | "bytes"> {
  const kept: ContentBlock[] = [];
  let bytes = 0;
  let dropped = 0;
  for (const item of items) {
    const size = itemBytes(item);
    if (dropped > 0 || bytes + size > maxBytes) {
      // Only a text is cut (at a whole character); anything else that does not fit is dropped whole.
      const room = Math.floor((maxBytes - bytes) / 2);
      if (dropped === 0 && item.type === "text" && room > 0) {
        const cut = room - (isHighSurrogate(item.text.charCodeAt(room - 1)) ? 1 : 0);
        kept.push({ ...item, text: item.text.slice(0, cut) });
        bytes += 2 * cut;
        dropped += item.text.length - cut;
      } else dropped += itemLength(item);
      continue;
    }
    kept.push(item);
    bytes += size;
  }
  const starts = [0];
  for (const item of kept) starts.push(starts.at(-1)! + itemLength(item));
  return { items: kept, dropped, starts, bytes };
}

export class ResultStore implements KeptResults {
  readonly #kept = new Map<string, KeptResult>();
  readonly #limits: StoreLimits;
  #next = 1;
  #bytes = 0;
  /** Bytes forgotten since `collect` was last called. */
  #forgotten = 0;

  constructor(limits: Partial<StoreLimits> = {}) {
    this.#limits = { maxBytes: MAX_BYTES, maxAgeMs: MAX_AGE_MS, now: () => Date.now(), ...limits };
  }

  /** Bytes held now, for tests and figures. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Keeps a result's items, cutting what exceeds the whole store's bound from its end. */
  keep(toolbox: string, limit: number, items: readonly ContentBlock[]): KeptResult {
    this.#expire();
    const fit = fitted(items, this.#limits.maxBytes);
    while (this.#bytes + fit.bytes > this.#limits.maxBytes && this.#kept.size > 0) this.#forget(this.#kept.keys().next().value!);
    const entry: KeptResult = { id: `r${this.#next++}`, toolbox, limit, ...fit, touched: this.#limits.now() };
    this.#kept.set(entry.id, entry);
    this.#bytes += fit.bytes;
    return entry;
  }

  /** The kept result, its age restarted; undefined when unknown, expired or pushed out. */
  get(id: string): KeptResult | undefined {
    this.#expire();
    const entry = this.#kept.get(id);
    if (!entry) return undefined;
    entry.touched = this.#limits.now();
    // Most recently read last: the oldest is pushed out first.
    this.#kept.delete(id);
    this.#kept.set(id, entry);
    return entry;
  }

  #expire(): void {
    const oldest = this.#limits.now() - this.#limits.maxAgeMs;
    for (const [id, entry] of this.#kept) if (entry.touched < oldest) this.#forget(id);
  }

  #forget(id: string): void {
    const entry = this.#kept.get(id);
    if (!entry) return;
    this.#kept.delete(id);
    this.#bytes -= entry.bytes;
    this.#forgotten += entry.bytes;
    if (this.#forgotten >= COLLECT_AFTER_BYTES && this.#limits.collect) {
      this.#forgotten = 0;
      this.#limits.collect();
    }
  }
}

export function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
