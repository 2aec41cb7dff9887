/**
 * `${client:NAME}`: the calling member's own secret NAME, in a server's headers, env, args or url
 * (issue 49). Loading leaves the reference in place (expand.ts); the pool puts the member's value in
 * when it starts a process or a remote session for that member (toolboxes/pool.ts), so that a
 * server with one is never shared between members. Over `serve --http` a member's secrets are
 * `serve.clients.<name>.secrets`; the local user's (over stdio, in the subcommands) are environment
 * variables of the same names. A member without one gets an error that says how to set it: there
 * is no fallback, no default, and never another member's value.
 */
import type { ServerConfig } from "./types.ts";
import { LOCAL_CLIENT_NAME, usesClient } from "./client-variable.ts";

/** One reference, as `expandString` finds it where a `${` starts. */
export const SECRET_REFERENCE = /\$\{client:([A-Za-z_][A-Za-z0-9_]*)\}/y;
const ALL_REFERENCES = /\$\{client:([A-Za-z_][A-Za-z0-9_]*)\}/g;
/** A secret's name, as `serve.clients.<name>.secrets` keys it. */
export const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Where a reference may be used, for the error that says it is used elsewhere. */
export const SECRET_REFERENCE_PLACES = "${client:NAME} is only for a server's headers, env, args and url";

/** A member's secrets as the configuration gives them: the values it has, and why those it has that cannot be read cannot. */
export interface MemberSecrets {
  readonly values: Readonly<Record<string, string>>;
  readonly unreadable?: Readonly<Record<string, string>>;
  /** False for a member who is no `serve.clients` key (a JWT's subject): the file holds no secrets for them. */
  readonly configured?: boolean;
  /** The member may provide a missing one on a page (auth/connect-flow.ts): the message says so. */
  readonly providable?: boolean;
}

/** The texts of a server that may hold a reference. */
function placesOf(config: ServerConfig): string[] {
  return config.transport === "stdio"
    ? [...config.args, ...Object.values(config.env)]
    : [config.url, ...Object.values(config.headers)];
}

/** The secrets a (loaded) server's references name, each once. */
export function secretNamesOf(config: ServerConfig): string[] {
  return [...new Set(placesOf(config).flatMap((text) => [...text.matchAll(ALL_REFERENCES)].map((match) => match[1])))];
}

/** Whether a loaded server uses a member's secret. */
export function usesSecrets(config: ServerConfig): boolean {
  return placesOf(config).some((text) => text.includes("${client:"));
}

/**
 * The client `approve --client` must start a server as to see what it lists for that client: one
 * other than the local user, when its process is that client's own in what it may list, named for
 * it (`${WORKBENCH_CLIENT}`) or given its secrets (a member's token may show them more tools).
 */
export function approvedAs(config: ServerConfig, client: string | undefined): string | undefined {
  return client !== undefined && client !== LOCAL_CLIENT_NAME && (usesClient(config) || usesSecrets(config)) ? client : undefined;
}

/** What a member lacking a secret is told: which one, and where to set it (or that they may provide it). */
export function missingSecret(name: string, client: string, secrets: MemberSecrets): string {
  const unreadable = secrets.unreadable?.[name];
  if (client === LOCAL_CLIENT_NAME) return `Secret '${name}' is not set: set the environment variable ${name} (the local user's '${name}')`;
  if (unreadable !== undefined) return `Secret '${name}' of client '${client}' cannot be read: ${unreadable}`;
  const where = `serve.clients.${client}.secrets.${name}`;
  if (secrets.providable) {
    return `Secret '${name}' is not set for client '${client}': provide it on the page a call of this server asks you to open ` +
      `(a client with URL elicitation asks), or have ${where} set in the configuration`;
  }
  if (secrets.configured === false) {
    const why = "secrets are set for the clients of serve.clients, and a client signed in with OAuth is none";
    return `Secret '${name}' is not set for client '${client}': ${why}`;
  }
  return `Secret '${name}' is not set for client '${client}': set ${where} in the configuration (a value or "\${VAR}")`;
}

/**
 * The server as it runs for a member: each reference replaced by the member's value; or, when the
 * member lacks one, the server unconfigured with the message that says which (it fails alone and is
 * never started). The values used are kept on it (not enumerable, as `written` is) for masking.
 */
export function withSecrets<T extends ServerConfig>(config: T, client: string, secrets: MemberSecrets): T {
  const names = secretNamesOf(config);
  // A server that cannot be configured anyway (an unset variable) says so first.
  if (names.length === 0 || config.unconfigured !== undefined) return config;
  // An empty value would reach the server as if it were one: it is as good as none.
  const missing = names.find((name) => !secrets.values[name]);
  if (missing !== undefined) {
    const lacking = { ...config, unconfigured: missingSecret(missing, client, secrets) } as T;
    return Object.defineProperty(lacking, "missingSecret", { value: missing, enumerable: false });
  }
  const put = (text: string) => text.replace(ALL_REFERENCES, (_, name: string) => secrets.values[name]);
  const putAll = (record: Record<string, string>) => Object.fromEntries(Object.entries(record).map(([key, value]) => [key, put(value)]));
  const filled: T = config.transport === "stdio"
    ? { ...config, args: config.args.map(put), env: putAll(config.env) }
    : { ...config, url: put(config.url), headers: putAll(config.headers) };
  // The definition as written stays what pins know it by (lock-format.ts): never a member's value.
  if (config.written !== undefined) Object.defineProperty(filled, "written", { value: config.written, enumerable: false });
  return Object.defineProperty(filled, "memberValues", { value: names.map((name) => secrets.values[name]), enumerable: false });
}

/** The member's values a server was started with, to be masked in all it sends and writes. */
export function memberValuesOf(config: ServerConfig): readonly string[] {
  return config.memberValues ?? [];
}
