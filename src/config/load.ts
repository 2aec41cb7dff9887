/** Which configuration file is read (--config, WORKBENCH_CONFIG, ./, the user's), and reading it whole. */
import { ConfigError } from "./errors.ts";
import { type Environment, expandConfig, type FallbackObserver } from "./expand.ts";
import { parseJson } from "./json.ts";
import type { WorkbenchConfig } from "./types.ts";
import { validateConfig } from "./validate.ts";
import { secretVariables, withSecretsWithheld } from "./secret-variables.ts";
import { messageOf } from "../protocol/errors.ts";

export interface LoadedConfig {
  /** The absolute path the configuration was read from. */
  path: string;
  config: WorkbenchConfig;
}

export const DEFAULT_CONFIG_FILE = "workbench-config.json";
export const CONFIG_PATH_VARIABLE = "WORKBENCH_CONFIG";

/**
 * Picks the configuration file: the --config flag, else the WORKBENCH_CONFIG
 * variable (ignored when empty, as shells treat it), else workbench-config.json
 * in cwd. Relative paths resolve against cwd, which should be absolute.
 */
export function resolveConfigPath(options: { flag?: string; env: Environment; cwd: string }): string {
  if (options.flag === "") throw new ConfigError("Invalid --config value: expected a file path");
  const chosen = options.flag ?? (options.env[CONFIG_PATH_VARIABLE] || DEFAULT_CONFIG_FILE);
  return isAbsolutePath(chosen) ? chosen : joinPath(options.cwd, chosen);
}

/** Where to read the configuration: a path, and the file to read instead when it is not there. */
export interface ConfigLocation {
  path: string;
  orElse?: string;
}

/**
 * resolveConfigPath's choice; when neither --config nor WORKBENCH_CONFIG names a file, the
 * per-user file (where `init` writes) is read if ./workbench-config.json does not exist.
 */
export function locateConfig(options: { flag?: string; env: Environment; cwd: string; userFile?: string }): ConfigLocation {
  const path = resolveConfigPath(options);
  const named = options.flag !== undefined || Boolean(options.env[CONFIG_PATH_VARIABLE]);
  return named || options.userFile === undefined || options.userFile === path ? { path } : { path, orElse: options.userFile };
}

/** POSIX `/x`, Windows `C:\x` or `C:/x`, UNC `\\server\share`, and rooted `\x`. */
function isAbsolutePath(path: string): boolean {
  return /^(?:[\\/]|[A-Za-z]:[\\/])/.test(path);
}

// The part of an absolute path that `..` cannot climb above.
const ROOT = /^(?:\\\\[^\\/]+[\\/][^\\/]+[\\/]?|[A-Za-z]:[\\/]?|\/)?/;

/** Joins with the base's separator style and resolves `.` and `..` segments. */
function joinPath(base: string, relative: string): string {
  const windows = /^(?:[A-Za-z]:|\\\\)/.test(base);
  const separator = windows ? "\\" : "/";
  const splitter = windows ? /[\\/]/ : /\//;
  const root = ROOT.exec(base)![0];
  const segments = base.slice(root.length).split(splitter).filter((segment) => segment !== "");
  for (const segment of relative.split(splitter)) {
    if (segment === "..") segments.pop();
    else if (segment !== "" && segment !== ".") segments.push(segment);
  }
  // Windows roots take backslashes and end in one, so C: and C:/ become C:\ like \\host\share\ does.
  const fullRoot = windows ? root.replaceAll("/", "\\").replace(/\\?$/, "\\") : root;
  return fullRoot + segments.join(separator);
}

/**
 * Reads, parses, validates and expands the configuration file at `path`.
 * `env` supplies the variables for `${NAME}` references.
 */
export async function loadConfig(
  options: ConfigLocation & {
    readTextFile: (path: string) => Promise<string>;
    env: Environment;
    onFallback?: FallbackObserver;
  },
): Promise<LoadedConfig> {
  const { path, text } = await readConfigFile(options, options.readTextFile);
  // Invalid JSON names the file in its own words.
  const data = parseJson(text, path);
  try {
    const valid = validateConfig(data, path);
    const config = withSecretsWithheld(expandConfig(valid, options.env, options.onFallback), secretVariables(valid));
    return { path, config: withAuditLogPath(config, path) };
  } catch (error) {
    // The problems are headed by the file's name, even one alone.
    if (error instanceof ConfigError) throw ConfigError.inFile(error.problems, path);
    throw error;
  }
}

/** The audit log's path, a relative one taken from the configuration file's folder (as the lock file's is). */
function withAuditLogPath(config: WorkbenchConfig, path: string): WorkbenchConfig {
  if (config.auditLog === undefined || isAbsolutePath(config.auditLog)) return config;
  const folder = path.replace(/[\\/][^\\/]*$/, "") || "/";
  return { ...config, auditLog: joinPath(folder, config.auditLog) };
}

/** Reads the first of the location's files that exists. */
async function readConfigFile(
  { path, orElse }: ConfigLocation,
  readTextFile: (path: string) => Promise<string>,
): Promise<{ path: string; text: string }> {
  let notFound: unknown;
  for (const candidate of orElse === undefined ? [path] : [path, orElse]) {
    try {
      return { path: candidate, text: await readTextFile(candidate) };
    } catch (error) {
      if (!isNotFound(error)) {
        throw new ConfigError(`Cannot read configuration file '${candidate}': ${messageOf(error)}`, { cause: error });
      }
      notFound = error;
    }
  }
  const looked = orElse === undefined ? `'${path}'` : `'${path}' nor '${orElse}'`;
  const init = orElse === undefined ? "" : "write one with mcp-workbench init, or ";
  throw new ConfigError(
    `Configuration file not found: ${looked} (${init}set another path with --config PATH or the ${CONFIG_PATH_VARIABLE} environment ` +
      `variable)`,
    { cause: notFound },
  );
}

/** Deno names a missing file "NotFound"; Bun and Node set code ENOENT. */
function isNotFound(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  return ("name" in error && error.name === "NotFound") || ("code" in error && error.code === "ENOENT");
}
