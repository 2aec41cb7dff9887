import { ConfigError, invalidConfiguration } from "./errors.ts";
import { formatPath, type PathSegment } from "./path.ts";
import type { RemoteServerConfig, ServerConfig, StdioServerConfig, WorkbenchConfig } from "./schema.ts";

/** Environment variables by name; `undefined` means unset. */
export type Environment = Record<string, string | undefined>;

// `${NAME}` or `${NAME:-default}`; the default runs to the first `}`.
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/y;

/**
 * Replaces `${NAME}` and `${NAME:-default}` in one string. As in the shell, the
 * default applies when NAME is unset or empty. Substituted values are not
 * scanned again, and `$NAME` without braces stays literal.
 */
export function expandString(text: string, env: Environment, path: readonly PathSegment[]): string {
  let result = "";
  let position = 0;
  for (let start = text.indexOf("${"); start !== -1; start = text.indexOf("${", position)) {
    REFERENCE.lastIndex = start;
    const match = REFERENCE.exec(text);
    const [reference, name, fallback] = match ?? [];
    // A `${` inside a default means an attempt at nesting, which is not supported.
    if (reference === undefined || name === undefined || fallback?.includes("${")) {
      throw new ConfigError(
        `Invalid variable reference at ${formatPath(path)}: expected \${NAME} or \${NAME:-default}`,
      );
    }
    result += text.slice(position, start) + resolve(name, fallback, env, path);
    position = start + reference.length;
  }
  return result + text.slice(position);
}

function resolve(name: string, fallback: string | undefined, env: Environment, path: readonly PathSegment[]): string {
  // Own properties only: a plain object's inherited `constructor` is not a variable.
  const value = Object.hasOwn(env, name) ? env[name] : undefined;
  if (fallback !== undefined) return value || fallback;
  if (value === undefined) {
    throw new ConfigError(`Environment variable ${name} is not set (used at ${formatPath(path)})`);
  }
  return value;
}

/**
 * Expands variables in each server's command, args, env values and cwd, or its url, header values
 * and oauth credentials. Names, descriptions and toolFilters are taken literally. Returns a new config.
 */
export function expandConfig(config: WorkbenchConfig, env: Environment): WorkbenchConfig {
  const toolboxes = Object.entries(config.toolboxes).map(([toolboxName, toolbox]) => {
    const servers = Object.entries(toolbox.mcpServers).map(([serverName, server]) => {
      const path = ["toolboxes", toolboxName, "mcpServers", serverName];
      return [serverName, expandServer(server, env, path)] as const;
    });
    // fromEntries keeps every key, even `__proto__`, as an own property in file order.
    return [toolboxName, { ...toolbox, mcpServers: Object.fromEntries(servers) }] as const;
  });
  return { toolboxes: Object.fromEntries(toolboxes) };
}

function expandServer(server: ServerConfig, env: Environment, path: PathSegment[]): ServerConfig {
  return server.transport === "stdio" ? expandStdio(server, env, path) : expandRemote(server, env, path);
}

function expandRemote(server: RemoteServerConfig, env: Environment, path: PathSegment[]): RemoteServerConfig {
  const url = expandString(server.url, env, [...path, "url"]);
  // The message names what was expected, never the value: a URL can hold a password or a token.
  if (!isHttpUrl(url)) {
    throw invalidConfiguration([...path, "url"], "expected an http or https URL after expanding environment variables");
  }
  const expanded: RemoteServerConfig = {
    ...server,
    url,
    headers: Object.fromEntries(
      Object.entries(server.headers).map(([name, value]) => [name, expandString(value, env, [...path, "headers", name])]),
    ),
  };
  if (server.oauth) {
    const oauth = { ...server.oauth };
    if (oauth.clientId !== undefined) oauth.clientId = expandString(oauth.clientId, env, [...path, "oauth", "clientId"]);
    if (oauth.clientSecret !== undefined) {
      oauth.clientSecret = expandString(oauth.clientSecret, env, [...path, "oauth", "clientSecret"]);
    }
    expanded.oauth = oauth;
  }
  return expanded;
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

function expandStdio(server: StdioServerConfig, env: Environment, path: PathSegment[]): StdioServerConfig {
  const command = expandString(server.command, env, [...path, "command"]);
  if (command === "") {
    throw invalidConfiguration([...path, "command"], "expected a non-empty string after expanding environment variables");
  }
  const expanded: StdioServerConfig = {
    ...server,
    command,
    args: server.args.map((arg, index) => expandString(arg, env, [...path, "args", index])),
    env: Object.fromEntries(
      Object.entries(server.env).map(([name, value]) => [name, expandString(value, env, [...path, "env", name])]),
    ),
  };
  if (server.cwd !== undefined) {
    expanded.cwd = expandString(server.cwd, env, [...path, "cwd"]);
    if (expanded.cwd === "") {
      throw invalidConfiguration([...path, "cwd"], "expected a non-empty string after expanding environment variables");
    }
  }
  return expanded;
}
