/**
 * A call's arguments as they may be shown to the user or written to the audit log: values of keys
 * that look secret (password, token, apiKey...) masked, the server's configured secrets (env
 * values, header values, see address/redact.ts) masked wherever they appear, and for a message
 * long values, long lists and deep nesting cut to a readable size.
 */
import { isRemote, type ServerConfig } from "../config/index.ts";
import { MASK, Redactor } from "../address/redact.ts";

/** Key names whose values are secrets whatever they hold. */
const SECRET_KEY =
  /password|passwd|passphrase|^pwd$|^pass$|secret|token|api[-_]?key|access[-_]?key|private[-_]?key|credential|authorization|^auth$|cookie/i;

export function looksSecret(key: string): boolean {
  return SECRET_KEY.test(key);
}

/** The secrets the user configured for this server: what a message or a log line must not hold. */
export function serverRedactor(config: ServerConfig): Redactor {
  return isRemote(config) ? Redactor.forServer(config) : Redactor.forEnv(config.env);
}

export interface ShowOptions {
  redact: (text: string) => string;
  /** Cut strings longer than this (characters); none when absent. */
  maxChars?: number;
  /** Keep this many items of an array or keys of an object; all when absent. */
  maxItems?: number;
  /** Objects and arrays nested deeper than this are shown as "{…}" and "[…]"; none when absent. */
  maxDepth?: number;
}

/** A copy of `value` with secrets masked and, as `options` say, cut. */
export function shownValue(value: unknown, options: ShowOptions, depth = 0): unknown {
  if (typeof value === "string") return cut(options.redact(value), options.maxChars);
  if (typeof value !== "object" || value === null) return value;
  const deep = options.maxDepth !== undefined && depth >= options.maxDepth;
  if (Array.isArray(value)) {
    if (deep) return "[…]";
    const kept = value.slice(0, options.maxItems).map((item) => shownValue(item, options, depth + 1));
    return kept.length < value.length ? [...kept, `… (${value.length - kept.length} more)`] : kept;
  }
  if (deep) return "{…}";
  const entries = Object.entries(value);
  const kept = entries.slice(0, options.maxItems).map(([key, item]) => [
    options.redact(key),
    looksSecret(key) && item !== null && item !== undefined && item !== "" ? MASK : shownValue(item, options, depth + 1),
  ]);
  if (kept.length < entries.length) kept.push(["…", `${entries.length - kept.length} more keys`]);
  return Object.fromEntries(kept);
}

function cut(text: string, maxChars: number | undefined): string {
  if (maxChars === undefined || text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}… (${text.length} characters)`;
}
