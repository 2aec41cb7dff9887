/**
 * Text into search terms: identifiers split at case changes and separators (`readTextFile`,
 * `read_text_file` and `read-text-file` all give read, text, file), lower case, common words
 * dropped, each word stemmed. The same function reads tools and queries, so both meet on one form.
 */
import { stem } from "./stem.ts";

/** Words that say nothing about which tool is meant. */
const STOP_WORDS = new Set(
  ("a an the and or but if then else of to in on at by for from with without into onto over under about as is " +
    "are was were be been being this that these those it its i me my we our you your he she they them their " +
    "what which who whom whose when where why how all any both each few more most other some such no nor not " +
    "only own same so than too very can will just do does did doing have has had having would should could may " +
    "might must shall please want wants need needs like also using via etc let lets tell give me s t d ll ve re " +
    "m go going there here up down out off again further once one ones thing things something anything whatever " +
    "particular specific certain currently current help kindly")
    .split(" "),
);

/** Splits camelCase, PascalCase, snake_case, kebab-case and dotted names into words. */
export function splitIdentifier(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .replace(/[_\-./:]+/g, " ")
    .toLowerCase();
}

/** The words of a text, split and lower-cased, before stop words and stemming. */
export function words(text: string): string[] {
  // A long unbroken run of letters and digits (base64, a hash, a key) is data, not words.
  return splitIdentifier(text.replace(/[A-Za-z0-9+/=]{40,}/g, " ")).split(/[^\p{L}\p{N}]+/u).filter((word) => word !== "");
}

/** The search terms of a text: words without stop words, stemmed. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const word of words(text)) {
    if (STOP_WORDS.has(word)) continue;
    if (word.length > 40) continue;
    out.push(stem(word));
  }
  return out;
}
