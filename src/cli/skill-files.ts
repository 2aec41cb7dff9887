/**
 * How `approve` shows a skill's files (Skills extension) changed since they were pinned: one line
 * per file added, removed or changed, with its size and digest (old and new for a changed one), and
 * a count of those unchanged, rather than a diff of the pin's JSON. A pin keeps a skill's files as
 * "<digest> <size>" by URI (toolboxes/fingerprint.ts skillFiles), or "dynamic" when the skill
 * publishes none.
 */

/** Hex digits of a digest shown: enough to tell two apart by eye; the lock file keeps them whole. */
const DIGEST_SHOWN = 16;

type Files = Record<string, string> | "dynamic";

/** The lines for a skill's files pinned `before` (absent: a new skill) and listed `after`. */
export function skillFileLines(before: unknown, after: unknown): string[] {
  const old = filesOf(before);
  const now = filesOf(after);
  if (now === "dynamic" || old === "dynamic") {
    const was = old === undefined ? [] : [`was: ${old === "dynamic" ? `"dynamic"` : counted(Object.keys(old).length)}`];
    const is = now === "dynamic"
      ? `"dynamic": the server publishes no digests, its files cannot be verified`
      : counted(Object.keys(now ?? {}).length);
    return [
      ...was,
      `now: ${is}`,
      ...(now !== "dynamic" && now ? Object.entries(now).map(([uri, file]) => `added    ${uri} (${shown(file)})`) : []),
    ];
  }
  const lines: string[] = [];
  let same = 0;
  const uris = [...new Set([...Object.keys(old ?? {}), ...Object.keys(now ?? {})])].sort();
  for (const uri of uris) {
    const was = old?.[uri];
    const is = now?.[uri];
    if (was === is) same++;
    else if (was === undefined) lines.push(`added    ${uri} (${shown(is!)})`);
    else if (is === undefined) lines.push(`removed  ${uri} (was ${shown(was)})`);
    else lines.push(`changed  ${uri} (${shown(was)} -> ${shown(is)})`);
  }
  if (same > 0) lines.push(`${counted(same)} unchanged`);
  return lines;
}

function filesOf(value: unknown): Files | undefined {
  if (value === "dynamic") return "dynamic";
  return typeof value === "object" && value !== null ? value as Record<string, string> : undefined;
}

/** "<digest> <size>" as "40 bytes, sha256:0123456789abcdef…". */
function shown(file: string): string {
  const [digest, size] = file.split(" ");
  const cut = digest.length > "sha256:".length + DIGEST_SHOWN ? `${digest.slice(0, "sha256:".length + DIGEST_SHOWN)}…` : digest;
  return `${size} ${size === "1" ? "byte" : "bytes"}, ${cut}`;
}

const counted = (count: number) => `${count} ${count === 1 ? "file" : "files"}`;
