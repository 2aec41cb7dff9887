/**
 * A small set of words that stand for one another in tool descriptions ("folder" and "directory",
 * "remove" and "delete"), written from general usage. A query term also looks for the others of its
 * group, at a lower weight than the word itself.
 */
import { terms } from "./text.ts";

const GROUPS = [
  "get fetch retrieve obtain read load",
  "show display view print",
  "list enumerate browse",
  "create add make new insert generate",
  "delete remove erase drop destroy purge forget",
  "update edit modify change alter replace patch",
  "search find query locate lookup discover seek",
  "send post publish submit",
  "file document",
  "folder directory subfolder subdirectory",
  "image picture photo screenshot",
  "message chat dm",
  "email mail inbox",
  "run execute exec invoke launch trigger",
  "stop cancel terminate kill halt abort",
  "download save export store write",
  "upload attach import",
  "user account profile member person people",
  "repo repository project",
  "issue ticket bug",
  "price cost quote",
  "weather forecast temperature",
  "convert transform",
  "translate translation language",
  "summarize summary digest",
  "calendar event meeting appointment schedule",
  "note memo",
  "memory remember memorize recall",
  "web website url page link site internet online webpage",
  "spreadsheet sheet table",
  "database db sql",
  "time date clock timezone",
  "map location place address geocode coordinates",
  "direction route navigate",
  "crypto cryptocurrency coin token bitcoin",
  "song music track audio",
  "video movie film clip",
  "news headline",
  "stock ticker equity",
  "book reservation booking reserve",
  "flight airline",
  "hotel lodging accommodation",
  "recipe food meal dish",
  "code source program script",
  "comment reply",
  "task todo",
  "contact phone",
  "analyze analysis inspect examine",
  "check verify validate",
  "status health state",
  "log logs",
  "metric stats statistics",
  "chart graph plot diagram visualize",
  "content contents text",
  "info information details metadata",
  "describe explain",
  "browser navigate",
  "click press tap",
  "type fill enter",
  "paper publication research arxiv",
  "math calculate calculator compute arithmetic",
  // How people name everyday tasks, written from general usage: the word of the task beside the word of the tool.
  "rain umbrella snow sunny wind weather",
  "hot cold warm temperature",
  "stay rent rental apartment accommodation vacation",
  "walk walking commute trip journey travel directions",
  "random lottery raffle shuffle",
  "zip unzip compress compression gzip archive",
  "revenue profit earnings income financials",
  "trending popular viral",
  "hierarchy tree structure nested",
  "size big large bytes",
  "permission access rights chmod",
  "slide slides deck presentation powerpoint ppt",
  "excel xlsx csv spreadsheet",
  "word docx doc",
  "tweet twitter",
  "wipe clear erase",
  "unlink disconnect detach",
  "job career employer employment",
  "restaurant dining eat",
  "buy purchase order shop shopping",
  "currency exchange forex",
  "package library dependency module",
  "article post story blog",
  "cook cooking recipe",
  "sick symptom disease illness medical",
  "train bus transit",
];

/**
 * Question words that are stop words yet ask to find something: "who do I know at Acme", "where is
 * my resume"; the words of the tools that do it. One way only: "search" does not look for "who".
 */
export const QUESTION_WORDS: ReadonlyMap<string, readonly string[]> = new Map([
  ["who", terms("search find")],
  ["where", terms("search find locate")],
]);

/** Each term's others in its groups, by stem. */
export const SYNONYMS: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, Set<string>>();
  for (const group of GROUPS) {
    const stems = [...new Set(group.split(" ").flatMap((word) => terms(word)))];
    for (const term of stems) {
      const others = map.get(term) ?? new Set<string>();
      for (const other of stems) if (other !== term) others.add(other);
      map.set(term, others);
    }
  }
  return new Map([...map].map(([term, others]) => [term, [...others]]));
})();
