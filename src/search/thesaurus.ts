/**
 * The thesaurus derived from WordNet 3.1 (thesaurus.json, written by scripts/thesaurus.ts): for a
 * query's term, the terms MCP tools use that share a synset with it (its synonyms). Read once, when
 * the search's index is first loaded.
 */
import table from "./thesaurus.json" with { type: "json" };

const NONE: readonly string[] = [];

function lookup(words: Record<string, string>): (term: string) => readonly string[] {
  const known = new Map<string, readonly string[]>();
  return (term) => {
    let found = known.get(term);
    if (found === undefined) {
      found = Object.hasOwn(words, term) ? words[term].split(" ") : NONE;
      if (known.size < 10_000) known.set(term, found);
    }
    return found;
  };
}

export const thesaurusSynonyms = lookup(table.synonyms as Record<string, string>);
