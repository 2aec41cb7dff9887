/**
 * What tool search learns from use (issue 53): a tool called right after a search is a judgement,
 * the tool the model chose for that request. Each pair keeps the request's terms (stemmed words, not
 * its text) and the tool's key; a later request that shares most of its terms lifts that tool. Pure
 * and bounded: at most MAX_CHOICES pairs (the least recently confirmed go first), MAX_CHOICE_TERMS
 * terms a pair. It only ever lifts a tool the ranker was given: what may be found is decided by the
 * index's entries, never by this memory.
 */
import { terms } from "./text.ts";
import { MAX_QUERY_CHARS } from "./bounds.ts";

/** Pairs kept at most, per configuration file. */
export const MAX_CHOICES = 500;
/** Terms kept of a request. */
export const MAX_CHOICE_TERMS = 16;
/** A stored request lifts its tool when it has at least this share of the request's weight. */
export const MIN_OVERLAP = 0.3;

export interface Choice {
  /** The request's distinct terms, sorted. */
  terms: string[];
  /** The chosen tool's key (the caller's: toolbox, server and name). */
  tool: string;
  /** How many times this request led to this tool. */
  count: number;
  /** When it last did, as a sequence number (larger is later). */
  last: number;
}

export class ChoiceMemory {
  readonly #choices: Choice[] = [];
  #clock = 0;

  constructor(saved: readonly Choice[] = []) {
    for (const one of saved.slice(-MAX_CHOICES)) {
      if (!isChoice(one)) continue;
      this.#choices.push({ terms: one.terms.slice(0, MAX_CHOICE_TERMS), tool: one.tool, count: one.count, last: one.last });
      this.#clock = Math.max(this.#clock, one.last);
    }
  }

  get size(): number {
    return this.#choices.length;
  }

  /** Remembers that `request` led to `tool`; false when the request has no terms to remember. */
  remember(request: string, tool: string): boolean {
    const key = requestTerms(request);
    if (key.length === 0) return false;
    const joined = key.join(" ");
    const known = this.#choices.find((one) => one.tool === tool && one.terms.join(" ") === joined);
    if (known) {
      known.count++;
      known.last = ++this.#clock;
      return true;
    }
    if (this.#choices.length >= MAX_CHOICES) {
      let oldest = 0;
      for (let i = 1; i < this.#choices.length; i++) if (this.#choices[i].last < this.#choices[oldest].last) oldest = i;
      this.#choices.splice(oldest, 1);
    }
    this.#choices.push({ terms: key, tool, count: 1, last: ++this.#clock });
    return true;
  }

  /**
   * For a request, each remembered tool's lift (0 to 1): the best share of the request's weight that
   * a request which led to the tool had too, each term weighed by how rare it is among the remembered
   * requests (a word every request has says little); terms no remembered request has do not count,
   * since they cannot tell the remembered apart. More for a pair confirmed again.
   */
  lift(request: string, min = MIN_OVERLAP): Map<string, number> {
    const out = new Map<string, number>();
    const asked = requestTerms(request);
    if (asked.length === 0 || this.#choices.length === 0) return out;
    const documents = new Map<string, number>();
    for (const one of this.#choices) for (const term of one.terms) documents.set(term, (documents.get(term) ?? 0) + 1);
    const weight = new Map<string, number>();
    let total = 0;
    for (const term of asked) {
      const n = documents.get(term);
      if (n === undefined) continue;
      const w = Math.log(1 + this.#choices.length / n);
      weight.set(term, w);
      total += w;
    }
    if (total === 0) return out;
    for (const one of this.#choices) {
      let shared = 0;
      for (const term of one.terms) shared += weight.get(term) ?? 0;
      const value = (shared / total) * Math.min(1, 0.75 + 0.25 * Math.log2(one.count));
      if (value >= min && value > (out.get(one.tool) ?? 0)) out.set(one.tool, value);
    }
    return out;
  }

  /** The pairs, to be written and read back. */
  toJSON(): Choice[] {
    return this.#choices.map((one) => ({ ...one, terms: [...one.terms] }));
  }
}

/** A request's distinct terms, sorted, at most MAX_CHOICE_TERMS (its first ones). */
export function requestTerms(request: string): string[] {
  return [...new Set(terms(request.slice(0, MAX_QUERY_CHARS)))].slice(0, MAX_CHOICE_TERMS).sort();
}

function isChoice(value: unknown): value is Choice {
  if (typeof value !== "object" || value === null) return false;
  const one = value as Record<string, unknown>;
  return Array.isArray(one.terms) && one.terms.every((term) => typeof term === "string") && typeof one.tool === "string" &&
    Number.isInteger(one.count) && (one.count as number) > 0 && Number.isInteger(one.last);
}
