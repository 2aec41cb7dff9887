/**
 * The bounds of a search query, so that one query cannot stall every client (issue 52): kept apart
 * from the ranker so that search_tools' schema can name them without loading the index at start-up.
 */

/** The longest query read, in characters (search_tools refuses a longer one). */
export const MAX_QUERY_CHARS = 2000;
/** The most distinct terms of a query's own that count (a long task description of MSC-Bench level 4 has about 90). */
export const MAX_QUERY_WORDS = 96;
/** The most terms looked for, its own and implied together. */
export const MAX_QUERY_TERMS = 256;
