/**
 * `mcp-workbench init [--from SOURCE] [--project PATH] [--toolbox NAME] [--out PATH] [--merge | --force]`:
 * writes a configuration from the servers an MCP client already has (or a starter file), or with
 * --merge adds them to the one there is, then prints the block that makes the client start the
 * workbench instead and the client's entries to remove. The workbench's own entry is never
 * imported. Each file is checked as `check` loads it before it is written: init never leaves a file that does not load. Values of
 * env and headers are never printed: they are often secrets.
 */
import type { Platform } from "../platform/types.ts";
import { ConfigError, expandConfig, parseJson, resolveConfigPath, validateConfig } from "../config/index.ts";
import { CONFIG_SCHEMA_URL } from "../config/json-schema.ts";
import { messageOf } from "../protocol/errors.ts";
import type { SubcommandArgs } from "./args.ts";
import { type ClientName, CLIENTS, readsProject } from "./clients.ts";
import { type Imported, importServers, InitError } from "./init-import.ts";
import { findSecret, type SecretSpot } from "./init-secrets.ts";
import { mergeServers } from "./init-merge.ts";
import { report, type Written } from "./init-report.ts";
import { targetsOf } from "./init-targets.ts";
import { homeOf, type Places, userConfigFile } from "../config/user-file.ts";
import { EXIT_FAILED, EXIT_USAGE, sayError, writeStdout } from "./common.ts";

export async function runInit(platform: Platform, args: SubcommandArgs): Promise<number> {
  const options = initOptions(platform, args);
  if (typeof options === "number") return options;
  let planned: { imported?: Imported; written: Planned[] };
  try {
    planned = await plan(platform, options);
  } catch (error) {
    if (!(error instanceof InitError) && !(error instanceof ConfigError)) throw error;
    sayError(platform, error.message);
    return EXIT_USAGE;
  }
  const failed = await writePlanned(platform, planned.written, args.options["--force"] === true);
  if (failed !== undefined) return failed;
  await writeStdout(platform, report(platform, planned.imported, options.toolbox, planned.written));
  return 0;
}

/** What init was asked for, read from its options; a usage error is said here and its exit code returned. */
interface InitOptions {
  places: Places;
  from?: string;
  toolbox: string;
  out: string;
  project?: string;
  merge: boolean;
}

function initOptions(platform: Platform, args: SubcommandArgs): InitOptions | number {
  const home = homeOf(platform.env);
  if (home === undefined) {
    sayError(platform, "Cannot find your home folder: neither HOME nor USERPROFILE is set");
    return EXIT_USAGE;
  }
  const places: Places = { os: platform.os, home, cwd: platform.cwd, env: platform.env };
  const from = typeof args.options["--from"] === "string" ? args.options["--from"] : undefined;
  const toolbox = typeof args.options["--toolbox"] === "string" ? args.options["--toolbox"] : "default";
  if (toolbox.trim() === "") {
    sayError(platform, "Option '--toolbox' needs a name that is not blank");
    return EXIT_USAGE;
  }
  const out = outPath(args, platform.cwd) ?? userConfigFile(places);
  if (out instanceof InitError) {
    sayError(platform, out.message);
    return EXIT_USAGE;
  }
  const projectOption = args.options["--project"];
  const project = typeof projectOption === "string" ? resolveConfigPath({ flag: projectOption, env: {}, cwd: platform.cwd }) : undefined;
  const readsNoProject = from !== undefined && (CLIENTS as readonly string[]).includes(from) && !readsProject(from as ClientName);
  if (project !== undefined && (from === undefined || readsNoProject)) {
    const readers = CLIENTS.filter(readsProject).join(", ");
    sayError(platform, `Option '--project' is for --from ${readers} or a file's path: it names the project folder their servers are ` +
      `read for`);
    return EXIT_USAGE;
  }
  const merge = args.options["--merge"] === true;
  if (merge && (from === undefined || args.options["--force"] === true)) {
    sayError(
      platform,
      from === undefined
        ? "Option '--merge' needs --from: it adds a client's servers to the file"
        : "Options '--merge' and '--force' contradict each other (give one)",
    );
    return EXIT_USAGE;
  }
  return { places, from, toolbox, out, project, merge };
}

/** The servers imported and each file's text, each checked as check loads it; throws InitError or ConfigError. */
async function plan(platform: Platform, { places, from, toolbox, out, project, merge }: InitOptions) {
  let imported: Imported | undefined;
  const written: Planned[] = [];
  const self = { platform, files: [out, userConfigFile(places)], cwd: platform.cwd };
  if (from !== undefined) imported = await importServers(platform, from, places, project, self);
  if (imported && Object.keys(imported.servers).length === 0 && !merge) {
    const [ours] = imported.ours;
    throw new InitError(
      `Nothing to import: '${ours.file}' starts only the workbench ('${ours.name}'); to add a server it has next to it, run init ` +
        `with --merge`,
    );
  }
  const targets = imported ? targetsOf(imported, out, project ?? platform.cwd) : [{ file: out, servers: {} }];
  for (const target of targets) {
    const existing = merge
      ? await platform.readTextFile(target.file).catch((error) => {
        if ((error as Error | undefined)?.name === "NotFound") return undefined;
        throw new InitError(`Cannot read '${target.file}': ${messageOf(error)}`);
      })
      : undefined;
    let config = imported ? importedConfig(imported, toolbox, target.servers) : starterConfig(toolbox);
    let merged: Written["merged"];
    if (existing !== undefined) {
      const about = description(imported!, target.servers);
      const result = mergeServers(parseJson(existing, target.file), target.file, toolbox, target.servers, about);
      config = result.config;
      merged = { added: result.added, kept: result.kept };
    }
    const text = `${JSON.stringify(config, null, 2)}\n`;
    // The file is loaded as check and serving load it before it is written, so none is left that does not load.
    const problems = loadProblems(text, target.file, platform.env);
    if (problems.length > 0) {
      const details = problems.length === 1 ? ` ${problems[0]}` : problems.map((problem) => `\n  - ${problem}`).join("");
      throw new InitError(`The ${merged ? "merged" : "imported"} servers would not load, so nothing was written:${details}`);
    }
    written.push({ target, ...(merged && { merged }), text, secret: allSecret(config) });
  }
  return { imported, written };
}

/** Writes the planned files (a merge with nothing added leaves its file alone); an exit code when one cannot be. */
async function writePlanned(platform: Platform, written: Planned[], force: boolean): Promise<number | undefined> {
  const overwrite = (item: Planned) => item.merged !== undefined || force;
  const exists = (error: unknown) => (error as Error | undefined)?.name === "AlreadyExists";
  const fileExists = (file: string) =>
    sayError(platform, `File exists: '${file}' (it is left as it is; use --merge to add the new servers to it, or --force to overwrite ` +
      `it)`);
  // With two files to write (a project's servers apart), neither is written when the other is in the way.
  for (const item of written.slice(1)) {
    if (!overwrite(item) && await platform.readTextFile(item.target.file).then(() => true, () => false)) {
      fileExists(item.target.file);
      return EXIT_FAILED;
    }
  }
  for (const item of written) {
    if (item.merged && item.merged.added.length === 0) continue;
    try {
      await platform.createFile(item.target.file, item.text, { overwrite: overwrite(item), private: item.secret !== undefined });
    } catch (error) {
      if (exists(error)) fileExists(item.target.file);
      else sayError(platform, `Cannot write '${item.target.file}': ${messageOf(error)}`);
      return EXIT_FAILED;
    }
  }
  return undefined;
}

/** A file to write: what the report says of it, and its text. */
type Planned = Written & { text: string };

/** Where a file holds a secret-looking value, in any toolbox: written for its owner only then. */
function allSecret(config: Record<string, unknown>): SecretSpot | undefined {
  const toolboxes = Object.values((config.toolboxes ?? {}) as Record<string, { mcpServers?: Record<string, Record<string, unknown>> }>);
  return findSecret(Object.assign({}, ...toolboxes.map((box) => box.mcpServers ?? {})));
}

/**
 * The file to write: --out, or --config as every other command names the configuration file (the
 * one the printed `check --config` and paste block name); both only when they name the same file.
 */
function outPath(args: SubcommandArgs, cwd: string): string | InitError | undefined {
  const resolve = (flag: string) => resolveConfigPath({ flag, env: {}, cwd });
  const out = args.options["--out"];
  const config = args.configPath === undefined ? undefined : resolve(args.configPath);
  if (typeof out !== "string") return config;
  if (config !== undefined && config !== resolve(out)) {
    return new InitError(`Options '--out' and '--config' name different files: '${resolve(out)}' and '${config}' (give one)`);
  }
  return resolve(out);
}

// The loader's words for a variable that is not set (src/config/expand.ts): the user is told to set it,
// it does not stop init. Were the words to change, the cli-init-import test of ${env:MCP_URL} fails.
const UNSET = /^Environment variable \S+ is not set \(used at /;

/** What the loader `check` uses finds wrong in the file, but for variables not set here. */
function loadProblems(text: string, out: string, env: Record<string, string | undefined>): string[] {
  try {
    expandConfig(validateConfig(parseJson(text, out), out), env);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.problems.filter((problem) => !UNSET.test(problem));
  }
}

function description(imported: Imported, servers: Imported["servers"]): string {
  return `Servers from ${imported.source}: ${Object.keys(servers).join(", ")}`;
}

function importedConfig(imported: Imported, toolbox: string, servers: Imported["servers"]): Record<string, unknown> {
  return { $schema: CONFIG_SCHEMA_URL, toolboxes: { [toolbox]: { description: description(imported, servers), mcpServers: servers } } };
}

function starterConfig(toolbox: string): Record<string, unknown> {
  return {
    $schema: CONFIG_SCHEMA_URL,
    $comment: "MCP Workbench: each toolbox groups MCP servers; a client sees only open_toolbox and use_tool. " +
      "Replace the example with your servers (command, args, env, cwd; ${VAR} and ${VAR:-default} read the " +
      "environment), then run: mcp-workbench check. To import a client's servers instead: mcp-workbench init --from claude-desktop",
    toolboxes: {
      [toolbox]: {
        description: "Example: read and write files in your home folder",
        mcpServers: {
          filesystem: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}"] },
        },
      },
    },
  };
}
