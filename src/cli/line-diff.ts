/**
 * A line diff for people, as `approve` shows a tool's old and new text: lines only in the old text
 * start with "- ", lines only in the new with "+ ", lines in both with "  " (a longest common
 * subsequence of lines, so that a changed schema shows the properties that changed, not all of it).
 */

/** Past this many line pairs, the texts are shown whole, old then new: the table would be too big. */
const MAX_CELLS = 4_000_000;

export function lineDiff(before: string | undefined, after: string | undefined): string[] {
  const old = before === undefined ? [] : before.split(/\r\n|\n|\r/);
  const now = after === undefined ? [] : after.split(/\r\n|\n|\r/);
  if (old.length * now.length > MAX_CELLS) return [...old.map((line) => `- ${line}`), ...now.map((line) => `+ ${line}`)];
  // common[i][j]: the longest common subsequence of old[i..] and now[j..].
  const common = Array.from({ length: old.length + 1 }, () => new Uint32Array(now.length + 1));
  for (let i = old.length - 1; i >= 0; i--) {
    for (let j = now.length - 1; j >= 0; j--) {
      common[i][j] = old[i] === now[j] ? common[i + 1][j + 1] + 1 : Math.max(common[i + 1][j], common[i][j + 1]);
    }
  }
  const lines: string[] = [];
  let i = 0;
  let j = 0;
  while (i < old.length || j < now.length) {
    if (i < old.length && j < now.length && old[i] === now[j]) {
      lines.push(`  ${old[i++]}`);
      j++;
    } else if (i < old.length && (j === now.length || common[i + 1][j] >= common[i][j + 1])) {
      lines.push(`- ${old[i++]}`);
    } else {
      lines.push(`+ ${now[j++]}`);
    }
  }
  return lines;
}
