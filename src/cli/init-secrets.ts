/**
 * Whether a file `init` writes may hold a secret, so that it is written for its owner only (0600).
 * The rule is deliberately loose: a private file costs nothing when we are wrong, a key others can
 * read does.
 */
import { formatPath, type PathSegment } from "../config/path.ts";

/** Where the first secret-looking value is: a server and one of its fields. */
export interface SecretSpot {
  server: string;
  /** "env", "headers", or the field whose value looks secret: `args[3]`, `url`. */
  field: string;
}

// A URL with a password in it: scheme://user:password@host
const URL_PASSWORD = /[A-Za-z][\w+.-]*:\/\/[^/\s:@]*:[^/\s@]+@/;
// An option that names a secret: --api-key, --token, --client-secret, --password, --auth...
const SECRET_OPTION = /^--?[\w-]*(?:key|token|secret|passw(?:or)?d|pwd|auth|credential|bearer)[\w-]*$/i;
// A long run of letters and digits mixed, as generated keys and tokens are (ghp_..., sk-..., hex, JWT parts).
const RANDOM_RUN = /[A-Za-z0-9]{20,}/g;
// A value that is only a reference to the environment holds no secret itself.
const ONLY_REFERENCE = /^\$\{[^}]*\}$/;

/**
 * The first place where a server holds a secret-looking value, or undefined. Any `env` or `headers`
 * value counts (that is where keys go); in command, args, cwd and url: a URL with a password, the
 * value of an option named like a secret (`--api-key VALUE`, `--token=VALUE`), or a run of 20 or
 * more letters and digits that mixes both.
 */
export function findSecret(servers: Record<string, Record<string, unknown>>): SecretSpot | undefined {
  for (const [server, entry] of Object.entries(servers)) {
    for (const field of ["env", "headers"]) {
      const record = entry[field];
      if (typeof record === "object" && record !== null && Object.keys(record).length > 0) return { server, field };
    }
    const texts: [PathSegment[], unknown][] = [
      [["command"], entry.command],
      [["cwd"], entry.cwd],
      [["url"], entry.url],
      ...(Array.isArray(entry.args) ? entry.args.map((arg, index): [PathSegment[], unknown] => [["args", index], arg]) : []),
    ];
    for (const [index, [path, value]] of texts.entries()) {
      if (typeof value !== "string") continue;
      const previous = texts[index - 1]?.[1];
      const afterOption = path[0] === "args" && typeof previous === "string" && SECRET_OPTION.test(previous);
      if (looksSecret(value, afterOption)) return { server, field: formatPath(path) };
    }
  }
  return undefined;
}

function looksSecret(value: string, afterSecretOption: boolean): boolean {
  if (afterSecretOption && value !== "" && !value.startsWith("-") && !ONLY_REFERENCE.test(value)) return true;
  const inline = /^(--?[^=\s]+)=(.+)$/.exec(value);
  if (inline && SECRET_OPTION.test(inline[1]) && !ONLY_REFERENCE.test(inline[2])) return true;
  if (URL_PASSWORD.test(value)) return true;
  return [...value.matchAll(RANDOM_RUN)].some(([run]) => /\d/.test(run) && /[A-Za-z]/.test(run));
}
