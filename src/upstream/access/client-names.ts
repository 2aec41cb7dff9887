/**
 * A client's name from a token's subject. The name is `${WORKBENCH_CLIENT}`, a file name in
 * servers' paths, so it must be one safe file name on every platform and no two subjects may
 * share one, also where names are compared without case (macOS, Windows). A subject that is
 * already such a name stays as it is: lower-case letters, digits, `.`, `_` and `-`, starting with
 * a letter or digit, not ending with `.`, at most 64 characters, not a name Windows reserves
 * (`con`, `nul`, `com1`, ... with or without an extension). Any other becomes a slug of it (lower
 * case, characters other than letters, digits and `_` as `-`, so no extension and no final dot, at
 * most 40) with `~` and the first 16 hex digits of its SHA-256:
 * `ALICE` is `alice~…`, `alice.` is `alice~…`, `x:y` is `x-y~…`. A name as it is never holds `~`,
 * so a derived name never equals one, and all are lower case, so no two differ by case alone.
 */

const SAFE = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/;
const SLUG_LENGTH = 40;
const HASH_DIGITS = 16;

/** True when `name` is a file name on every platform as it is, distinct from others without case. */
export function isPortableName(name: string): boolean {
  return SAFE.test(name) && !name.endsWith(".") && !RESERVED.test(name.split(".")[0]);
}

/** The client name for a token's subject: the subject when it is a portable name, else slug~hash. */
export async function clientNameOf(subject: string): Promise<string> {
  if (isPortableName(subject)) return subject;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(subject)));
  const hash = [...digest].map((byte) => byte.toString(16).padStart(2, "0")).join("").slice(0, HASH_DIGITS);
  const slug = subject.toLowerCase().replace(/[^a-z0-9_]+/g, "-").slice(0, SLUG_LENGTH).replace(/^-+|-+$/g, "");
  return `${slug || "client"}~${hash}`;
}
