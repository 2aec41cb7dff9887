/** `${NAME}` and `${NAME:-default}` replaced from the environment, in the keys that take them. */
import { ConfigError, invalidAt } from "./errors.ts";
import { expandTokenExchange } from "./server-auth.ts";
import { formatPath, type PathSegment } from "./path.ts";
import { expandServe } from "./serve.ts";
import type { RemoteServerConfig, ServerConfig, StdioServerConfig, WorkbenchConfig } from "./types.ts";
import { CLIENT_REFERENCE, CLIENT_VARIABLE, CLIENT_VARIABLE_PLACES, usesClient } from "./client-variable.ts";
import { SECRET_REFERENCE, SECRET_REFERENCE_PLACES, usesSecrets } from "./member-secrets.ts";
import { sharingKey } from "./definition.ts";
import { expandTelemetry } from "./telemetry.ts";

/** Environment variables by name; `undefined` means unset. */
export type Environment = Record<string, string | undefined>;

/**
 * What `${WORKBENCH_CLIENT}` and `${client:NAME}` become at load: both kept for the pool to fill in
 * per client (a stdio server's env and args), only `${client:NAME}` kept ("secrets": a remote
 * server's url and headers), or both refused (anywhere else).
 */
export type ClientReference = "keep" | "secrets" | "refuse";

/** Told of each `${NAME:-default}` whose default was used (NAME unset or empty), for `check`'s warnings. */
export type FallbackObserver = (name: string, location: string) => void;

// `${NAME}` or `${NAME:-default}`; the default runs to the first `}`.
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/y;

/**
 * Replaces `${NAME}` and `${NAME:-default}` in one string. As in the shell, the
 * default applies when NAME is unset or empty. Substituted values are not
 * scanned again, and `$NAME` without braces stays literal.
 */
export function expandString(
  text: string,
  env: Environment,
  path: readonly PathSegment[],
  onFallback?: FallbackObserver,
  client?: ClientReference,
): string {
  let result = "";
  let position = 0;
  for (let start = text.indexOf("${"); start !== -1; start = text.indexOf("${", position)) {
    SECRET_REFERENCE.lastIndex = start;
    const secret = SECRET_REFERENCE.exec(text)?.[0];
    if (secret !== undefined) {
      // A member's secret is the member's alone: never read here, whatever the environment holds.
      if (client !== "keep" && client !== "secrets") throw new ConfigError(invalidAt(path, SECRET_REFERENCE_PLACES));
      result += text.slice(position, start) + secret;
      position = start + secret.length;
      continue;
    }
    REFERENCE.lastIndex = start;
    const match = REFERENCE.exec(text);
    const [reference, name, fallback] = match ?? [];
    // A `${` inside a default means an attempt at nesting, which is not supported.
    if (reference === undefined || name === undefined || fallback?.includes("${")) {
      throw new ConfigError(
        `Invalid variable reference at ${formatPath(path)}: expected \${NAME} or \${NAME:-default}`,
      );
    }
    if (name === CLIENT_VARIABLE && client !== undefined && client !== "keep") {
      throw new ConfigError(invalidAt(path, CLIENT_VARIABLE_PLACES));
    }
    const value = name === CLIENT_VARIABLE && client === "keep" ? CLIENT_REFERENCE : resolve(name, fallback, env, path, onFallback);
    result += text.slice(position, start) + value;
    position = start + reference.length;
  }
  return result + text.slice(position);
}

/** A variable with no default is not set: what needs it fails, the rest of the file stands. */
export class UnsetVariable extends ConfigError {}

function resolve(
  name: string,
  fallback: string | undefined,
  env: Environment,
  path: readonly PathSegment[],
  onFallback?: FallbackObserver,
): string {
  // Own properties only: a plain object's inherited `constructor` is not a variable.
  const value = Object.hasOwn(env, name) ? env[name] : undefined;
  if (fallback !== undefined) {
    if (!value) onFallback?.(name, formatPath(path));
    return value || fallback;
  }
  if (value === undefined) {
    throw new UnsetVariable(`Environment variable ${name} is not set (used at ${formatPath(path)})`);
  }
  return value;
}

/**
 * Expands variables in each server's command, args, env values and cwd, or its url, header values
 * and oauth credentials. Names, descriptions and toolFilters are taken literally. Returns a new
 * config; throws one ConfigError that lists every bad reference in the file. An unset variable
 * fails only what uses it: its server is `unconfigured` (it fails alone, with the message), its
 * serve client's token `unreadable` (that client is refused).
 */
export function expandConfig(config: WorkbenchConfig, env: Environment, onFallback?: FallbackObserver): WorkbenchConfig {
  const problems: string[] = [];
  // The problems of the server or client being expanded; those of unset variables are its alone.
  let own = problems;
  const unset = new Set<string>();
  const expand = (text: string, path: PathSegment[], client: ClientReference = "refuse"): string => {
    try {
      return expandString(text, env, path, onFallback, client);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      if (error instanceof UnsetVariable) unset.add(error.message);
      own.push(error.message);
      return text;
    }
  };
  /** Runs `expandOne` on its own problems: the unset variables' message, the others go to the file's. */
  const alone = <T>(expandOne: (problems: string[]) => T): { value: T; missing?: string } => {
    own = [];
    const value = expandOne(own);
    const missing = own.filter((problem) => unset.has(problem));
    problems.push(...own.filter((problem) => !unset.has(problem)));
    own = problems;
    return { value, ...(missing.length > 0 && { missing: missing.join("; ") }) };
  };
  const toolboxes = Object.entries(config.toolboxes).map(([toolboxName, toolbox]) => {
    const servers = Object.entries(toolbox.mcpServers).map(([serverName, server]) => {
      const path = ["toolboxes", toolboxName, "mcpServers", serverName];
      const { value, missing } = alone((own) => expandServer(server, path, expand, own));
      return [serverName, missing === undefined ? value : { ...value, unconfigured: missing }] as const;
    });
    // fromEntries keeps every key, even `__proto__`, as an own property in file order.
    return [toolboxName, { ...toolbox, mcpServers: Object.fromEntries(servers) }] as const;
  });
  const serve = config.serve && expandServe(config.serve, expand, alone);
  // An unset variable turns telemetry off alone (resolveTelemetry says why), not the workbench.
  const expanded = config.telemetry && alone((own) => expandTelemetry(config.telemetry!, expand, own));
  const telemetry = expanded && (expanded.missing === undefined ? expanded.value : { ...expanded.value, unconfigured: expanded.missing });
  if (problems.length > 0) throw ConfigError.of(problems);
  // The top-level keys (the audit log...) stay as they are.
  return {
    ...config,
    toolboxes: Object.fromEntries(toolboxes),
    ...(serve && { serve }),
    ...(telemetry && { telemetry }),
  };
}

type Expand = (text: string, path: PathSegment[], client?: ClientReference) => string;

const EMPTY_AFTER_EXPANDING = "expected a non-empty string after expanding environment variables";

function expandServer(server: ServerConfig, path: PathSegment[], expand: Expand, problems: string[]): ServerConfig {
  const expanded = server.transport === "stdio"
    ? expandStdio(server, path, expand, problems)
    : expandRemote(server, path, expand, problems);
  // Not enumerable: the configuration as data (compared, printed, listed) is what the file says, expanded.
  return Object.defineProperty(expanded, "written", { value: sharingKey(server), enumerable: false });
}

function expandRemote(server: RemoteServerConfig, path: PathSegment[], expand: Expand, problems: string[]): RemoteServerConfig {
  const before = problems.length;
  const url = expand(server.url, [...path, "url"], "secrets");
  // The message names what was expected, never the value: a URL can hold a password or a token.
  // An unset variable in it is reported already; the URL it leaves behind is not judged again.
  if (problems.length === before && !isHttpUrl(url)) {
    problems.push(invalidAt([...path, "url"], "expected an http or https URL after expanding environment variables"));
  }
  const expanded: RemoteServerConfig = {
    ...server,
    url,
    headers: Object.fromEntries(
      Object.entries(server.headers).map(([name, value]) => [name, expand(value, [...path, "headers", name], "secrets")]),
    ),
  };
  refuseSharedSecrets(expanded, path, problems);
  if (server.oauth) {
    const oauth = { ...server.oauth };
    if (oauth.clientId !== undefined) oauth.clientId = expand(oauth.clientId, [...path, "oauth", "clientId"]);
    if (oauth.clientSecret !== undefined) oauth.clientSecret = expand(oauth.clientSecret, [...path, "oauth", "clientSecret"]);
    if (oauth.clientMetadataUrl !== undefined) {
      const at = [...path, "oauth", "clientMetadataUrl"];
      const before = problems.length;
      oauth.clientMetadataUrl = expand(oauth.clientMetadataUrl, at);
      // The authorization server fetches it: an https URL with a path (the SDK refuses anything else).
      if (problems.length === before && !isMetadataDocumentUrl(oauth.clientMetadataUrl)) {
        problems.push(invalidAt(at, "expected an https URL with a path after expanding environment variables"));
      }
    }
    if (oauth.privateKeyJwt !== undefined) {
      const keyFile = expand(oauth.privateKeyJwt.keyFile, [...path, "oauth", "privateKeyJwt", "keyFile"]);
      oauth.privateKeyJwt = { ...oauth.privateKeyJwt, keyFile };
    }
    expanded.oauth = oauth;
  }
  if (server.auth) expanded.auth = { tokenExchange: expandTokenExchange(server.auth.tokenExchange, path, expand, problems) };
  return expanded;
}

/** One process or session for every member has no one member's secret to give. */
function refuseSharedSecrets(expanded: ServerConfig, path: PathSegment[], problems: string[]): void {
  if (expanded.share === "all" && usesSecrets(expanded)) {
    problems.push(invalidAt([...path, "share"], `"all" cannot be used with \${client:NAME}: one connection would serve every member`));
  }
}

function isMetadataDocumentUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "https:" && url.pathname !== "/";
  } catch {
    return false;
  }
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

function expandStdio(server: StdioServerConfig, path: PathSegment[], expand: Expand, problems: string[]): StdioServerConfig {
  const command = expand(server.command, [...path, "command"]);
  if (command === "") problems.push(invalidAt([...path, "command"], EMPTY_AFTER_EXPANDING));
  const expanded: StdioServerConfig = {
    ...server,
    command,
    args: server.args.map((arg, index) => expand(arg, [...path, "args", index], "keep")),
    env: Object.fromEntries(
      Object.entries(server.env).map(([name, value]) => [name, expand(value, [...path, "env", name], "keep")]),
    ),
  };
  // One process for every client has no one client's name to give.
  if (server.share === "all" && usesClient(expanded)) {
    problems.push(
      invalidAt([...path, "share"], `"all" cannot be used with ${CLIENT_REFERENCE} in env or args: one process serves every client`),
    );
  }
  refuseSharedSecrets(expanded, path, problems);
  if (server.cwd !== undefined) {
    expanded.cwd = expand(server.cwd, [...path, "cwd"]);
    if (expanded.cwd === "") problems.push(invalidAt([...path, "cwd"], EMPTY_AFTER_EXPANDING));
  }
  return expanded;
}
