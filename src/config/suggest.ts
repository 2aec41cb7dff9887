/**
 * "Did you mean": the known names closest to a misspelt one, so that a wrong call does not cost the
 * model another round of discovery. Close means the same but for case, one a prefix of the other,
 * or a small edit distance (about one edit per three characters).
 */

/** At most this many suggestions: more would be a list, not a guess. */
const MAX_SUGGESTIONS = 3;
/** A prefix shorter than this matches too much to mean anything. */
const MIN_PREFIX = 3;

/** The closest known names, best first; none when nothing is close. */
export function closestNames(wanted: string, known: Iterable<string>): string[] {
  const target = wanted.toLowerCase();
  const scored: { name: string; score: number }[] = [];
  for (const name of new Set(known)) {
    if (name === wanted) continue;
    const score = closeness(target, name.toLowerCase());
    if (score !== undefined) scored.push({ name, score });
  }
  return scored.sort((a, b) => a.score - b.score).slice(0, MAX_SUGGESTIONS).map((item) => item.name);
}

/** The tail of a "not found" message, e.g. ". Did you mean 'echo'?"; empty when nothing is close. */
export function didYouMean(wanted: string, known: Iterable<string>): string {
  const names = closestNames(wanted, known);
  return names.length === 0 ? "" : `. Did you mean ${alternatives(names)}?`;
}

/** 'a', 'a' or 'b', 'a', 'b' or 'c'. */
export function alternatives(names: string[]): string {
  const quoted = names.map((name) => `'${name}'`);
  return quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}`;
}

/** Lower is closer; undefined is not close at all. Both names are lower-cased. */
function closeness(wanted: string, name: string): number | undefined {
  if (wanted === name) return 0;
  const shorter = Math.min(wanted.length, name.length);
  if (shorter >= MIN_PREFIX && (name.startsWith(wanted) || wanted.startsWith(name))) return 1;
  const limit = Math.max(1, Math.floor(Math.max(wanted.length, name.length) / 3));
  const distance = editDistance(wanted, name, limit);
  return distance <= limit ? 1 + distance : undefined;
}

/**
 * Optimal string alignment distance (Levenshtein plus swapping two neighbours, the commonest typo),
 * stopped early once every path is past `limit`.
 */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, before[j - 2] + 1);
      current.push(value);
      best = Math.min(best, value);
    }
    if (best > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length];
}
