/**
 * A query in plain words into weighted search terms: its own words at weight 1 (quoted text at
 * less), and what they imply at less: translations of other languages' words, synonyms (a short
 * list written by hand, then WordNet's), "who" and "where" as a request to find, what a URL, a file
 * name or a path says, and two neighbouring words as a pair. Bounded whatever the input: at most MAX_QUERY_CHARS
 * characters are read, MAX_QUERY_WORDS terms of its own are kept, MAX_QUERY_TERMS in all.
 */
import type { QueryTerm } from "./bm25f.ts";
import { QUESTION_WORDS, SYNONYMS } from "./synonyms.ts";
import { thesaurusSynonyms } from "./thesaurus.ts";
import { FOREIGN, FOREIGN_STOP_WORDS } from "./languages.ts";
import { terms, words } from "./text.ts";
import { MAX_QUERY_CHARS, MAX_QUERY_TERMS, MAX_QUERY_WORDS } from "./bounds.ts";

export { MAX_QUERY_CHARS, MAX_QUERY_TERMS, MAX_QUERY_WORDS };

/** How much each kind of term counts; index.ts's TUNING holds it, chosen on the dev halves. */
export interface QueryWeights {
  quotedWeight: number;
  pairWeight: number;
  synonymWeight: number;
  thesaurusWeight: number;
  foreignWeight: number;
  shapeWeight: number;
  questionWeight: number;
}

/** What the shape of a word says: a URL is a web page, a name with an extension a file, a path a path. */
const SHAPES: readonly (readonly [RegExp, string])[] = [
  [/\b(?:https?:\/\/|www\.)\S+/i, "url web page"],
  [/(?:^|[\s"'`(])[\w-]+\.(?!com\b|org\b|net\b)[a-z][a-z0-9]{0,4}(?=$|[\s"'`),;:?!])/i, "file"],
  [/(?:^|\s)(?:~|\.{1,2})?\/[\w.-]+\/?/, "path"],
];

const FOREIGN_STOP = new Set(FOREIGN_STOP_WORDS.flatMap((word) => terms(word)));

/** Quoted text: the odd parts of query.split(QUOTED). Paths stay words: a file's extension says much. */
const QUOTED = /("[^"]*"|`[^`]*`)/;

/** Terms by weight: a term found again keeps its highest weight; none is added past MAX_QUERY_TERMS. */
class Terms {
  readonly list: QueryTerm[] = [];
  readonly #at = new Map<string, QueryTerm>();

  add(term: string, weight: number): void {
    const known = this.#at.get(term);
    if (known !== undefined) {
      if (weight > known.weight) known.weight = weight;
      return;
    }
    if (this.list.length >= MAX_QUERY_TERMS) return;
    const one = { term, weight };
    this.#at.set(term, one);
    this.list.push(one);
  }

  has(term: string): boolean {
    return this.#at.has(term);
  }
}

/** The query's terms: its own at weight 1 (quoted at less), then what they imply at lower weights. */
export function queryTerms(query: string, weights: QueryWeights): QueryTerm[] {
  const text = query.slice(0, MAX_QUERY_CHARS);
  const out = new Terms();
  const pairs: [string, number][] = [];
  // Quoted text is most often a value to pass (a name, an id), not words about the tool.
  text.split(QUOTED).forEach((part, index) => {
    const weight = index % 2 === 1 ? weights.quotedWeight : 1;
    const list = terms(part).filter((term) => !FOREIGN_STOP.has(term));
    for (const term of list) {
      if (out.has(term) || out.list.length < MAX_QUERY_WORDS) out.add(term, weight);
    }
    for (let i = 1; i < list.length && pairs.length < MAX_QUERY_WORDS; i++) {
      pairs.push([`${list[i - 1]} ${list[i]}`, weight * weights.pairWeight]);
    }
  });
  const own = out.list.slice();
  for (const { term, weight } of own) for (const english of FOREIGN.get(term) ?? []) addNew(out, english, weight * weights.foreignWeight);
  for (const { term, weight } of out.list.slice()) {
    for (const other of SYNONYMS.get(term) ?? []) addNew(out, other, weight * weights.synonymWeight);
  }
  for (const { term, weight } of own) {
    if (weight < 1) continue;
    for (const other of thesaurusSynonyms(term)) addNew(out, other, weights.thesaurusWeight);
  }
  // A cue raises a term the query implied at less (e.g. "file" among synonyms).
  // "who" and "where" are stop words, yet ask to find something.
  for (const word of words(text.slice(0, 200)).slice(0, MAX_QUERY_WORDS)) {
    for (const cue of QUESTION_WORDS.get(word.toLowerCase()) ?? []) out.add(cue, weights.questionWeight);
  }
  for (const [shape, cue] of SHAPES) if (shape.test(text)) for (const word of terms(cue)) out.add(word, weights.shapeWeight);
  if (weights.pairWeight > 0) for (const [pair, weight] of pairs) addNew(out, pair, weight);
  return out.list.filter((one) => one.weight > 0);
}

function addNew(out: Terms, term: string, weight: number): void {
  if (!out.has(term)) out.add(term, weight);
}
