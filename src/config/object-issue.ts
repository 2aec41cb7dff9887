/**
 * The words for what is wrong with an object of the configuration: its unknown keys, each with the
 * key it most likely stands for ("did you mean"), or what a missing key expects.
 */
import * as v from "valibot";
import { closestNames } from "./suggest.ts";
import { isJsonObject } from "./json-guards.ts";

/** The words for an issue of a strict object: every unknown key of it, or what a missing key expects. */
export function objectIssueMessage(entries: v.ObjectEntries, issue: v.ObjectIssue | v.StrictObjectIssue): string {
  const step = issue.path?.at(-1);
  if (issue.expected === "never" && step && isJsonObject(step.input)) {
    // valibot stops at the first unknown key; a report of the whole file names them all.
    const keys = Object.keys(step.input);
    const unknown = keys.filter((key) => !Object.hasOwn(entries, key));
    // A misspelt key gets the one it stands for, unless that one is there too.
    const absent = Object.keys(entries).filter((key) => !keys.includes(key));
    const named = unknown.map((key) => {
      const closest = abbreviated(key, absent) ?? closestNames(key, absent)[0];
      return closest === undefined ? `'${key}'` : `'${key}' (did you mean '${closest}'?)`;
    });
    return `unknown key${unknown.length > 1 ? "s" : ""} ${named.join(", ")}`;
  }
  const key = step?.key;
  const schema = typeof key === "string" ? entries[key] : undefined;
  return (schema && v.safeParse(schema, undefined).issues?.[0].message) ?? "expected a value";
}

/** The one key that has all of `short`'s letters in order (`cmd` for `command`), if just one does. */
function abbreviated(short: string, keys: string[]): string | undefined {
  if (short.length < 3) return undefined;
  const letters = short.toLowerCase();
  const matches = keys.filter((key) => {
    let at = 0;
    for (const char of key.toLowerCase()) if (char === letters[at]) at++;
    return at === letters.length;
  });
  return matches.length === 1 ? matches[0] : undefined;
}
