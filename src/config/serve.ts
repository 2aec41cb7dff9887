/**
 * The `serve` key's own rules: the checks and words schema.ts composes into its shape, what needs
 * the whole file (grants naming toolboxes that exist, one token source per client, no token twice),
 * and the `${VAR}` of a client's token. What it becomes is ServeConfig in types.ts.
 */
import { invalidAt } from "./errors.ts";
import type { PathSegment } from "./path.ts";
import { closestNames } from "./suggest.ts";
import { DEFAULT_SESSION_IDLE_MINUTES, type ServeClientConfig, type ServeConfig } from "./types.ts";
import { LOCAL_CLIENT_NAME } from "./client-variable.ts";
import { isLoopbackHost } from "./loopback.ts";
import { SECRET_NAME } from "./member-secrets.ts";

export const SHA256_HEX = /^[0-9a-fA-F]{64}$/;
// The whole value is one reference: a token written out, or a default after `:-`, would be a secret in the file.
export const TOKEN_REFERENCE = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/;
// setTimeout's bound (2^31 - 1 ms), in whole minutes.
export const MAX_SESSION_IDLE_MINUTES = 35_791;

export const EXPECTED_SHA256 = "expected the token's SHA-256 as 64 hex digits";
export const EXPECTED_TOKEN =
  `expected a reference to an environment variable such as "\${CI_TOKEN}" (or the token's SHA-256 in 'tokenSha256')`;
export const EXPECTED_GRANTS = 'expected an array of toolbox names, or ["*"] for every toolbox';
export const EXPECTED_JWKS_URI = "expected an https URL (http only on loopback)";
export const EXPECTED_AUDIENCE = "expected an array of one or more audiences (the URLs clients use for this server)";
export const EXPECTED_ORIGINS = 'expected an array of origins such as "https://app.example.com" (no path)';
export const EXPECTED_IDLE_MINUTES = `expected a positive integer of minutes (at most ${MAX_SESSION_IDLE_MINUTES})`;
export const EXPECTED_STORE =
  'expected a store URL such as "redis://host:6379" (also rediss://, valkey://, valkeys://; ${VAR} for a password)';
const EXPECTED_SECRET_NAME = "expected a secret's name as ${client:NAME} writes it: letters, digits and '_', not first a digit";
const EXPECTED_TOKEN_SOURCE = "expected either 'tokenSha256' or 'token'";

export const isSha256Hex = (value: unknown): value is string => typeof value === "string" && SHA256_HEX.test(value);
export const isTokenReference = (value: unknown): value is string => typeof value === "string" && TOKEN_REFERENCE.test(value);
/** A non-empty array of non-empty strings. */
export const isNameList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === "string" && item !== "");

/**
 * A client's name is `${WORKBENCH_CLIENT}` in servers' file paths and arguments: one path segment,
 * never a way out of a folder. Static names and tokens' subjects are held to it alike.
 */
export function isSafeClientName(name: string): boolean {
  // deno-lint-ignore no-control-regex
  return name !== "" && name !== "." && name !== ".." && name.length <= 256 && !/[/\\\u0000-\u001f\u007f]/.test(name);
}

/** A store's URL by its scheme (the rest is checked when it is opened, after `${VAR}` is expanded). */
export const isStoreUrl = (value: unknown): value is string =>
  typeof value === "string" && /^(redis|rediss|valkey|valkeys):\/\/./i.test(value);

/** A URL the workbench fetches keys from: https, or http on loopback (a proxy on the same host, a test). */
export function isFetchableUrl(value: unknown): value is string {
  const url = parseUrl(value);
  return url !== undefined && (url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname)));
}

/** Each item `scheme://host[:port]`, exactly as a browser sends it in `Origin`. */
export function isOriginList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => parseUrl(item)?.origin === item);
}

function parseUrl(value: unknown): URL | undefined {
  if (typeof value !== "string") return undefined;
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** The `serve` key as the schema passes it: every key optional, a client's token source unchecked. */
export interface ServeEntries {
  clients?: Record<string, { tokenSha256?: string; token?: string; toolboxes: string[]; secrets?: Record<string, string> }>;
  oauth?: ServeConfig["oauth"];
  allowedOrigins?: string[];
  sessionIdleMinutes?: number;
  store?: string;
}

/**
 * The key with its defaults, or the problems that need the rest of the file: a grant of a toolbox
 * that is not configured, a client with no token or two, a hashed token two clients share.
 */
export function resolveServe(entries: ServeEntries, toolboxes: readonly string[]): { serve: ServeConfig; problems: string[] } {
  const problems: string[] = [];
  const holders = new Map<string, string>();
  const clients = Object.entries(entries.clients ?? {}).map(([name, client]): [string, ServeClientConfig] => {
    const at: PathSegment[] = ["serve", "clients", name];
    if (!isSafeClientName(name)) {
      problems.push(invalidAt(at, "expected a client name without '/', '\\' or control characters, and not '.' or '..'"));
    }
    if (name === LOCAL_CLIENT_NAME) {
      problems.push(invalidAt(at, `expected another name: '${LOCAL_CLIENT_NAME}' is the user over stdio and of the subcommands`));
    }
    if ((client.tokenSha256 === undefined) === (client.token === undefined)) {
      problems.push(invalidAt(at, client.token === undefined ? EXPECTED_TOKEN_SOURCE : `${EXPECTED_TOKEN_SOURCE}, not both`));
    }
    const digest = client.tokenSha256?.toLowerCase();
    if (digest !== undefined) {
      const holder = holders.get(digest);
      if (holder !== undefined) {
        problems.push(invalidAt([...at, "tokenSha256"], `expected a token of its own: client '${holder}' has this one`));
      }
      holders.set(digest, name);
    }
    client.toolboxes.forEach((toolbox, index) => {
      if (toolbox === "*" || toolboxes.includes(toolbox)) return;
      const close = closestNames(toolbox, toolboxes);
      const hint = close.length > 0 ? ` (did you mean '${close[0]}'?)` : toolboxes.length === 0 ? " (none is)" : "";
      problems.push(invalidAt([...at, "toolboxes", index], `toolbox '${toolbox}' is not configured${hint}`));
    });
    for (const secret of Object.keys(client.secrets ?? {})) {
      if (!SECRET_NAME.test(secret)) problems.push(invalidAt([...at, "secrets", secret], EXPECTED_SECRET_NAME));
    }
    const grants = client.toolboxes.includes("*") ? "*" : [...new Set(client.toolboxes)];
    return [name, {
      ...(digest !== undefined && { tokenSha256: digest }),
      ...(client.token !== undefined && { token: client.token }),
      toolboxes: grants,
      ...(client.secrets !== undefined && { secrets: client.secrets }),
    }];
  });
  const serve: ServeConfig = {
    clients: Object.fromEntries(clients),
    ...(entries.oauth && { oauth: entries.oauth }),
    allowedOrigins: entries.allowedOrigins ?? [],
    sessionIdleMinutes: entries.sessionIdleMinutes ?? DEFAULT_SESSION_IDLE_MINUTES,
    ...(entries.store !== undefined && { store: entries.store }),
  };
  return { serve, problems };
}

/**
 * Expands each client's `token`. A token that cannot be read (its variable unset, or empty: an
 * empty token would let an empty header in) refuses that client alone: it is `unreadable`, why.
 */
export function expandServe(
  serve: ServeConfig,
  expand: (text: string, path: PathSegment[]) => string,
  alone: (expandOne: (problems: string[]) => string) => { value: string; missing?: string },
): ServeConfig {
  const clients = Object.entries(serve.clients).map(([name, written]): [string, ServeClientConfig] => {
    const secrets = written.secrets && expandSecrets(written.secrets, ["serve", "clients", name], expand, alone);
    const client = secrets ? { ...written, ...secrets } : written;
    if (client.token === undefined) return [name, client];
    const at = ["serve", "clients", name, "token"];
    const { value: token, missing } = alone(() => expand(client.token!, at));
    const unreadable = missing ??
      (token.trim() === "" ? `${invalidAt(at, "the token is empty after expanding environment variables")}` : undefined);
    if (unreadable !== undefined) return [name, { toolboxes: client.toolboxes, unreadable }];
    return [name, { ...client, token }];
  });
  if (serve.store === undefined) return { ...serve, clients: Object.fromEntries(clients) };
  // A store whose URL cannot be read is never replaced by memory: serving refuses to start (storeUnreadable).
  const { value: store, missing } = alone(() => expand(serve.store!, ["serve", "store"]));
  const read = missing === undefined ? { store } : { store: undefined, storeUnreadable: missing };
  return { ...serve, clients: Object.fromEntries(clients), ...read };
}

/**
 * A client's secrets, each `${VAR}` expanded. One that cannot be read (its variable unset) or that
 * is empty is not the member's: it is left out, why kept for the error the member gets.
 */
function expandSecrets(
  secrets: Record<string, string>,
  at: PathSegment[],
  expand: (text: string, path: PathSegment[]) => string,
  alone: (expandOne: (problems: string[]) => string) => { value: string; missing?: string },
): Pick<ServeClientConfig, "secrets" | "secretsUnreadable"> {
  const values: Record<string, string> = {};
  const unreadable: Record<string, string> = {};
  for (const [name, text] of Object.entries(secrets)) {
    const path = [...at, "secrets", name];
    const { value, missing } = alone(() => expand(text, path));
    if (missing !== undefined) unreadable[name] = missing;
    else if (value === "") unreadable[name] = invalidAt(path, "the secret is empty after expanding environment variables");
    else values[name] = value;
  }
  return { secrets: values, ...(Object.keys(unreadable).length > 0 && { secretsUnreadable: unreadable }) };
}
