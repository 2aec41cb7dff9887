/**
 * BM25F over documents of weighted fields: a term's counts in each field are normalised by that
 * field's length, weighed, summed, and only then saturated (Robertson, Zaragoza and Taylor, 2004),
 * so a word in a tool's name counts more than the same word deep in its description without a long
 * description drowning a short one. Postings are built once; a query walks only its terms' lists.
 */
import type { FieldTerms } from "./fields.ts";

export interface FieldSetting {
  weight: number;
  /** Length normalisation, 0 (none) to 1 (full). */
  b: number;
}

export interface Bm25fSettings<F extends string> {
  k1: number;
  fields: Record<F, FieldSetting>;
}

/** A query term and its weight (1 for a word of the query, less for a synonym). */
export interface QueryTerm {
  term: string;
  weight: number;
}

export class Bm25f<F extends string> {
  readonly size: number;
  readonly #postings = new Map<string, { docs: number[]; tf: number[] }>();
  readonly #k1: number;

  constructor(docs: readonly Record<F, FieldTerms>[], settings: Bm25fSettings<F>) {
    this.size = docs.length;
    this.#k1 = settings.k1;
    const names = Object.keys(settings.fields) as F[];
    const average = new Map<F, number>();
    for (const name of names) {
      let total = 0;
      for (const doc of docs) total += doc[name].length;
      average.set(name, docs.length === 0 ? 1 : Math.max(1, total / docs.length));
    }
    docs.forEach((doc, index) => {
      const pseudo = new Map<string, number>();
      for (const name of names) {
        const { weight, b } = settings.fields[name];
        const field = doc[name];
        if (weight === 0 || field.length === 0) continue;
        const norm = 1 - b + (b * field.length) / (average.get(name) ?? 1);
        for (const [term, count] of field.counts) pseudo.set(term, (pseudo.get(term) ?? 0) + (weight * count) / norm);
      }
      for (const [term, tf] of pseudo) {
        let list = this.#postings.get(term);
        if (list === undefined) this.#postings.set(term, (list = { docs: [], tf: [] }));
        list.docs.push(index);
        list.tf.push(tf);
      }
    });
  }

  has(term: string): boolean {
    return this.#postings.has(term);
  }

  /** The indexed single words that begin with `word` or that `word` begins with, each at least `min` long. */
  related(word: string, min: number): string[] {
    const out: string[] = [];
    for (let end = Math.max(min, 1); end < word.length; end++) {
      const prefix = word.slice(0, end);
      if (this.#postings.has(prefix)) out.push(prefix);
    }
    const sorted = this.#sortedWords();
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (sorted[middle] < word) low = middle + 1;
      else high = middle;
    }
    for (let i = low; i < sorted.length && sorted[i].startsWith(word) && out.length < 50; i++) {
      if (sorted[i] !== word) out.push(sorted[i]);
    }
    return out;
  }

  #sorted: string[] | undefined;
  #sortedWords(): string[] {
    return this.#sorted ??= [...this.#postings.keys()].filter((term) => !term.includes(" ")).sort();
  }

  /** Inverse document frequency (BM25's, floored at a small positive value). */
  idf(term: string): number {
    const n = this.#postings.get(term)?.docs.length ?? 0;
    return Math.max(0.05, Math.log(1 + (this.size - n + 0.5) / (n + 0.5)));
  }

  /** Adds each document's score to `scores` (indexed by document) and counts matched query weight in `matched`. */
  score(query: readonly QueryTerm[], scores: Float64Array, matched?: Float64Array): void {
    const k1 = this.#k1;
    for (const { term, weight } of query) {
      const list = this.#postings.get(term);
      if (list === undefined) continue;
      const idf = this.idf(term) * weight;
      const { docs, tf } = list;
      for (let i = 0; i < docs.length; i++) {
        const t = tf[i];
        scores[docs[i]] += (idf * t * (k1 + 1)) / (k1 + t);
        if (matched !== undefined) matched[docs[i]] += weight;
      }
    }
  }
}
