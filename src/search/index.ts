/**
 * Tool search: ranks tools for a query written in plain words. Three levels are scored and added,
 * as a user's setup is built: the toolbox (its name, its description and all its tools' words), the
 * server inside it (its name and its tools' words), and the tool (BM25F over name, description,
 * arguments, server and toolbox). Routing to the right group first is easier than to the right tool,
 * and the group's score lifts its tools (MCP-Zero). Synonyms of a query's words count at a lower
 * weight. Pure code, no model: a query over 1,000 tools takes well under a millisecond or two.
 */
import { Bm25f, type QueryTerm } from "./bm25f.ts";
import { entryFields, type FieldName, fieldTerms, type FieldTerms, type SearchEntry } from "./fields.ts";
import { MAX_QUERY_TERMS, queryTerms } from "./query.ts";
import { splitIdentifier } from "./text.ts";

export type { SearchEntry } from "./fields.ts";
export { MAX_QUERY_CHARS } from "./query.ts";

export interface SearchHit<E extends SearchEntry> {
  entry: E;
  score: number;
}

export interface SearchOptions<E extends SearchEntry = SearchEntry> {
  /** How many hits at most (default 10). */
  limit?: number;
  /** Only tools of this toolbox. */
  toolbox?: string;
  /**
   * Tools lifted by what was learned from use (choices.ts), 0 to 1 each: only entries of this index
   * can be lifted, so nothing the index was not given is ever found.
   */
  lift?: ReadonlyMap<E, number>;
}

/** Tuning, chosen on the public sets' dev halves (scripts/search-eval.ts --split dev). */
export const TUNING = {
  k1: 1.2,
  tool: {
    name: { weight: 3, b: 0.5 },
    description: { weight: 1, b: 0.75 },
    params: { weight: 0.4, b: 0.75 },
    server: { weight: 1, b: 0.3 },
    toolbox: { weight: 0.5, b: 0.3 },
  } as Record<FieldName, { weight: number; b: number }>,
  group: { name: { weight: 2, b: 0.3 }, text: { weight: 1, b: 0.75 } },
  serverWeight: 0.7,
  toolboxWeight: 0.25,
  synonymWeight: 0.35,
  quotedWeight: 0.5,
  /** Two neighbouring words of the query, found next to each other in a tool's name. */
  pairWeight: 0.25,
  relatedWeight: 0.5,
  relatedMin: 3,
  /** A query word's WordNet synonyms (thesaurus.ts), for words the query has at full weight. */
  thesaurusWeight: 0.2,
  /** An English word for a word of another language (languages.ts). */
  foreignWeight: 0.8,
  /** What a URL, a file name or a path says of the tool. */
  shapeWeight: 0.5,
  /** "who" and "where": a request to find something. */
  questionWeight: 0.5,
  /** What a lift of 1 (a request asked before, a tool chosen for it) adds to a tool's score. */
  learnedWeight: 0.7,
};

type GroupField = "name" | "text";

/** The most words looked for because they begin or end a query's word (#withRelated). */
const MAX_RELATED = 64;

export class ToolIndex<E extends SearchEntry> {
  readonly entries: readonly E[];
  readonly #tools: Bm25f<FieldName>;
  readonly #servers: Bm25f<GroupField>;
  readonly #toolboxes: Bm25f<GroupField>;
  /** Per tool: its server group's and its toolbox group's index. */
  readonly #serverOf: Int32Array;
  readonly #toolboxOf: Int32Array;

  constructor(entries: readonly E[]) {
    this.entries = entries;
    const fields = entries.map(entryFields);
    this.#tools = new Bm25f(fields, { k1: TUNING.k1, fields: TUNING.tool });
    const servers = new Map<string, number[]>();
    const toolboxes = new Map<string, number[]>();
    entries.forEach((entry, index) => {
      push(servers, `${entry.toolbox}\u0000${entry.server}`, index);
      push(toolboxes, entry.toolbox, index);
    });
    this.#serverOf = new Int32Array(entries.length);
    this.#toolboxOf = new Int32Array(entries.length);
    this.#servers = this.#groups(servers, this.#serverOf, (first) => splitIdentifier(first.server));
    this.#toolboxes = this.#groups(toolboxes, this.#toolboxOf, (first) =>
      `${splitIdentifier(first.toolbox)} ${first.toolboxDescription ?? ""}`);
  }

  #groups(groups: Map<string, number[]>, of: Int32Array, nameOf: (first: E) => string): Bm25f<GroupField> {
    const docs: Record<GroupField, FieldTerms>[] = [];
    for (const members of groups.values()) {
      for (const member of members) of[member] = docs.length;
      const text = members.map((m) => `${splitIdentifier(this.entries[m].name)} ${this.entries[m].description ?? ""}`);
      docs.push({ name: fieldTerms(nameOf(this.entries[members[0]])), text: fieldTerms(text.join(" ")) });
    }
    return new Bm25f(docs, { k1: TUNING.k1, fields: TUNING.group });
  }

  search(query: string, options: SearchOptions<E> = {}): SearchHit<E>[] {
    const limit = options.limit ?? 10;
    if (this.entries.length === 0) return [];
    let scores = this.#scores(query);
    if (options.lift !== undefined && options.lift.size > 0) {
      scores ??= new Float64Array(this.entries.length);
      for (let i = 0; i < this.entries.length; i++) {
        const lift = options.lift.get(this.entries[i]);
        if (lift !== undefined && lift > 0) scores[i] += TUNING.learnedWeight * lift;
      }
    }
    if (scores === undefined) return [];
    const hits: SearchHit<E>[] = [];
    for (let i = 0; i < scores.length; i++) {
      if (scores[i] === 0) continue;
      const entry = this.entries[i];
      if (options.toolbox !== undefined && entry.toolbox !== options.toolbox) continue;
      hits.push({ entry, score: scores[i] });
    }
    hits.sort((a, b) => b.score - a.score);
    return hits.slice(0, Math.max(0, limit));
  }

  /** Every tool's score for a text, the best 1 plus its groups' lift; undefined when nothing matches. */
  #scores(text: string): Float64Array | undefined {
    const parsed = this.#withRelated(queryTerms(text, TUNING));
    if (parsed.length === 0) return undefined;
    const tool = new Float64Array(this.entries.length);
    this.#tools.score(parsed, tool);
    let top = 0;
    for (let i = 0; i < tool.length; i++) if (tool[i] > top) top = tool[i];
    if (top === 0) return undefined;
    const server = normalised(this.#servers, parsed);
    const toolbox = normalised(this.#toolboxes, parsed);
    for (let i = 0; i < tool.length; i++) {
      if (tool[i] === 0) continue;
      tool[i] = tool[i] / top + TUNING.serverWeight * server[this.#serverOf[i]] +
        TUNING.toolboxWeight * toolbox[this.#toolboxOf[i]];
    }
    return tool;
  }

  /** A query word the tools never use also looks for the words it begins or that begin with it ("pptx", "ppt"). */
  #withRelated(query: QueryTerm[]): QueryTerm[] {
    if (TUNING.relatedWeight === 0) return query;
    const seen = new Set(query.map((q) => q.term));
    const out = [...query];
    for (const { term, weight } of query) {
      if (weight < 1 || term.length < TUNING.relatedMin || term.includes(" ") || this.#tools.has(term)) continue;
      for (const other of this.#tools.related(term, TUNING.relatedMin)) {
        if (seen.has(other)) continue;
        if (out.length >= MAX_QUERY_TERMS + MAX_RELATED) return out;
        seen.add(other);
        out.push({ term: other, weight: weight * TUNING.relatedWeight });
      }
    }
    return out;
  }

}

/** Each group's score divided by the best group's (0 to 1). */
function normalised(index: Bm25f<GroupField>, query: readonly QueryTerm[]): Float64Array {
  const scores = new Float64Array(index.size);
  index.score(query, scores);
  let top = 0;
  for (const score of scores) if (score > top) top = score;
  if (top > 0) for (let i = 0; i < scores.length; i++) scores[i] /= top;
  return scores;
}

function push(map: Map<string, number[]>, key: string, value: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}
