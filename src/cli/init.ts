/**
 * `mcp-workbench init [--from SOURCE] [--project PATH] [--toolbox NAME] [--out PATH] [--force]`:
 * writes a configuration from the servers an MCP client already has (or a starter file), then
 * prints the block that makes the client start the workbench instead. The file is checked as
 * `check` loads it before it is written: init never leaves a file that does not load. Values of
 * env and headers are never printed: they are often secrets.
 */
import type { Platform } from "../platform/types.ts";
import { ConfigError, expandConfig, parseJson, resolveConfigPath, validateConfig } from "../config/index.ts";
import { CONFIG_SCHEMA_URL } from "../config/json-schema.ts";
import { messageOf } from "../protocol/errors.ts";
import type { SubcommandArgs } from "./args.ts";
import { type ClientName, CLIENTS, pasteBlock, readsProject } from "./clients.ts";
import { type Imported, importServers, InitError } from "./init-import.ts";
import { findSecret, type SecretSpot } from "./init-secrets.ts";
import { homeOf, type Places, userConfigFile } from "../config/user-file.ts";
import { EXIT_FAILED, EXIT_USAGE, sayError, writeStdout } from "./common.ts";

export async function runInit(platform: Platform, args: SubcommandArgs): Promise<number> {
  const home = homeOf(platform.env);
  if (home === undefined) {
    sayError(platform, "Cannot find your home folder: neither HOME nor USERPROFILE is set");
    return EXIT_USAGE;
  }
  const places: Places = { os: platform.os, home, cwd: platform.cwd, env: platform.env };
  const from = args.options["--from"];
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
  if (project !== undefined && (typeof from !== "string" || ((CLIENTS as readonly string[]).includes(from) && !readsProject(from as ClientName)))) {
    const readers = CLIENTS.filter(readsProject).join(", ");
    sayError(platform, `Option '--project' is for --from ${readers} or a file's path: it names the project folder their servers are read for`);
    return EXIT_USAGE;
  }

  let imported: Imported | undefined;
  try {
    if (typeof from === "string") imported = await importServers(platform, from, places, project);
  } catch (error) {
    if (!(error instanceof InitError)) throw error;
    sayError(platform, error.message);
    return EXIT_USAGE;
  }
  const config = imported ? importedConfig(imported, toolbox) : starterConfig(toolbox);
  const text = `${JSON.stringify(config, null, 2)}\n`;
  // The file is loaded as check and serving load it before it is written, so none is left that does not load.
  const problems = loadProblems(text, out, platform.env);
  if (problems.length > 0) {
    const details = problems.length === 1 ? ` ${problems[0]}` : problems.map((problem) => `\n  - ${problem}`).join("");
    sayError(platform, `The imported servers would not load, so nothing was written:${details}`);
    return EXIT_USAGE;
  }
  const secret = imported && findSecret(imported.servers);
  try {
    await platform.createFile(out, text, { overwrite: args.options["--force"] === true, private: secret !== undefined });
  } catch (error) {
    if ((error as Error | undefined)?.name === "AlreadyExists") {
      sayError(platform, `File exists: '${out}' (it is left as it is; use --force to overwrite it)`);
    } else {
      sayError(platform, `Cannot write '${out}': ${messageOf(error)}`);
    }
    return EXIT_FAILED;
  }
  await writeStdout(platform, report(platform, imported, toolbox, out, secret));
  return 0;
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

function importedConfig(imported: Imported, toolbox: string): Record<string, unknown> {
  const names = Object.keys(imported.servers);
  return {
    $schema: CONFIG_SCHEMA_URL,
    toolboxes: {
      [toolbox]: { description: `Servers from ${imported.client}: ${names.join(", ")}`, mcpServers: imported.servers },
    },
  };
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

function report(platform: Platform, imported: Imported | undefined, toolbox: string, out: string, secret: SecretSpot | undefined): string {
  const self = platform.selfCommand();
  const client = imported?.client ?? "claude-desktop";
  const lines: string[] = [];
  let unset: string[] = [];
  if (imported) {
    const names = Object.keys(imported.servers).map((name) => imported.scopes[name] ? `${name} (${imported.scopes[name]})` : name);
    lines.push(`Wrote '${out}': toolbox '${toolbox}' with ${names.length} server(s) from ${imported.files.map((f) => `'${f}'`).join(", ")}: ${names.join(", ")}`);
    if (secret?.field === "env" || secret?.field === "headers") lines.push("It holds env or headers values, so only you can read it (mode 0600)");
    else if (secret) lines.push(`It holds a value that looks secret (server '${secret.server}', ${secret.field}), so only you can read it (mode 0600)`);
    lines.push(...imported.notes);
    unset = unsetVariables(imported, platform.env);
    lines.push(...variableLines(imported, unset));
  } else {
    lines.push(`Wrote '${out}': a starter configuration with one example toolbox '${toolbox}'; edit it for your servers`);
  }
  const check = [self.command, ...self.args, "check", "--config", out].map(quoteForDisplay).join(" ");
  lines.push(`Check it${unset.length > 0 ? ` (with ${unset.join(", ")} set)` : ""}: ${check}`, "");
  const [first, ...others] = imported?.files ?? [];
  const where = imported && imported.client !== "claude-code"
    ? `into '${first}' in place of the servers it now starts${others.length > 0 ? ` (and take them out of ${others.map((f) => `'${f}'`).join(", ")})` : ""}`
    : client === "claude-code" ? "in a terminal" : "into your MCP client's configuration";
  // VS Code still asks for its inputs when it starts the workbench, and hands them on as the variables the file reads.
  const env = client === "vscode" ? Object.fromEntries((imported?.inputs ?? []).map(({ id, name }) => [name, `\${input:${id}}`])) : {};
  lines.push(`Then paste this ${where}:`, pasteBlock(client, self.command, [...self.args, "--config", out], env), "");
  return lines.join("\n");
}

/** What the user must set: each VS Code input, then each variable read without a default that is not set here. */
function variableLines(imported: Imported, unset: string[]): string[] {
  const servers = (list: string[]) => `${list.length === 1 ? "server" : "servers"} ${list.map((name) => `'${name}'`).join(", ")}`;
  const lines = imported.inputs.map(({ id, name, description, servers: users }) =>
    `Set ${name} where the workbench starts: it stands for VS Code's input '${id}'${description ? ` (${description})` : ""}, read by ${servers(users)}` +
    (imported.client === "vscode" ? `; the block below passes it from VS Code (keep the "inputs" entry)` : "")
  );
  const inputs = new Set(imported.inputs.map(({ name }) => name));
  const readers = referencesWithoutDefault(imported.servers);
  for (const name of unset) {
    const users = readers.get(name) ?? [];
    if (!inputs.has(name)) lines.push(`Set ${name} where the workbench starts: it is not set here, and ${servers(users)} ${users.length === 1 ? "reads" : "read"} it`);
  }
  return lines;
}

/** The variables read without a default and not set in this environment (inputs included), in order of use. */
function unsetVariables(imported: Imported, env: Record<string, string | undefined>): string[] {
  return [...referencesWithoutDefault(imported.servers).keys()].filter((name) => !Object.hasOwn(env, name) || env[name] === undefined);
}

/** Each `${NAME}` (without a default) in the servers, with the servers that read it. */
function referencesWithoutDefault(servers: Imported["servers"]): Map<string, string[]> {
  const readers = new Map<string, string[]>();
  for (const [server, entry] of Object.entries(servers)) {
    for (const [, name] of JSON.stringify(entry).matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
      const list = readers.get(name) ?? [];
      if (!list.includes(server)) list.push(server);
      readers.set(name, list);
    }
  }
  return readers;
}

function quoteForDisplay(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word}'`;
}
