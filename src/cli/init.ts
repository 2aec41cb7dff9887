/**
 * `mcp-workbench init [--from SOURCE] [--toolbox NAME] [--out PATH] [--force]`: writes a
 * configuration from the servers an MCP client already has (or a starter file), then prints the
 * block that makes the client start the workbench instead. Values of env and headers are never
 * printed: they are often secrets.
 */
import type { Platform } from "../platform/types.ts";
import { resolveConfigPath } from "../config/index.ts";
import { CONFIG_SCHEMA_URL } from "../config/json-schema.ts";
import { messageOf } from "../errors.ts";
import type { SubcommandArgs } from "./args.ts";
import { type ClientName, CLIENTS, clientFiles, convertEntry, pasteBlock, serversKey, stripJsonComments } from "./clients.ts";
import { homeOf, type Places, userConfigFile } from "../config/user-file.ts";
import { EXIT_FAILED, EXIT_USAGE, sayError, writeStdout } from "./common.ts";

/** What was found in the client's files: servers in file order, and notes for the user. */
interface Imported {
  client: ClientName;
  files: string[];
  servers: Record<string, Record<string, unknown>>;
  notes: string[];
}

class InitError extends Error {}
/** A file named by the user is not there. */
class NoSuchFile extends InitError {}

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

  let imported: Imported | undefined;
  try {
    if (typeof from === "string") imported = await importServers(platform, from, places);
  } catch (error) {
    if (!(error instanceof InitError)) throw error;
    sayError(platform, error.message);
    return EXIT_USAGE;
  }
  const config = imported ? importedConfig(imported, toolbox) : starterConfig(toolbox);
  // env and headers values are often keys and tokens: such a file is for the user's eyes only.
  const secret = imported !== undefined && holdsSecrets(imported.servers);
  try {
    await platform.createFile(out, `${JSON.stringify(config, null, 2)}\n`, { overwrite: args.options["--force"] === true, private: secret });
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

async function importServers(platform: Platform, from: string, places: Places): Promise<Imported> {
  const client = (CLIENTS as readonly string[]).includes(from) ? from as ClientName : undefined;
  const files = client ? clientFiles(client, places) : [resolveConfigPath({ flag: from, env: {}, cwd: places.cwd })];
  const found: { file: string; data: Record<string, unknown> }[] = [];
  for (const file of files) {
    const data = await readClientFile(platform, file, client === undefined).catch((error) => {
      // A bare word that names no file was meant as a client's name.
      if (client === undefined && error instanceof NoSuchFile && !/[\\/.]/.test(from)) {
        throw new InitError(`Unknown client '${from}': expected ${CLIENTS.map((name) => `'${name}'`).join(", ")} or a file's path`);
      }
      throw error;
    });
    if (data) found.push({ file, data });
  }
  if (found.length === 0) {
    const looked = files.map((file) => `'${file}'`).join(", ");
    throw new InitError(`No ${from} configuration found (looked at ${looked}); give its path: --from PATH`);
  }
  // A file given by path is read in the shape it has: VS Code's "servers", else "mcpServers".
  const shape = client ?? (found[0].data.servers !== undefined && found[0].data.mcpServers === undefined ? "vscode" : "claude-desktop");
  const key = serversKey(shape);
  const servers: Record<string, Record<string, unknown>> = {};
  const notes: string[] = [];
  for (const { file, data } of found) {
    if (data.toolboxes !== undefined) throw new InitError(`'${file}' is already a workbench configuration`);
    const entries = data[key];
    if (entries === undefined) continue;
    if (typeof entries !== "object" || entries === null || Array.isArray(entries)) {
      throw new InitError(`Invalid client configuration '${file}': "${key}" is not an object of servers`);
    }
    for (const [name, entry] of Object.entries(entries)) {
      if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
        notes.push(`Left out server '${name}': its entry is not an object`);
        continue;
      }
      const { server, leftOut } = convertEntry(entry as Record<string, unknown>);
      if (leftOut.length > 0) {
        const what = leftOut.length === 1 ? "not a workbench setting" : "not workbench settings";
        notes.push(`Left out of server '${name}': ${leftOut.map((k) => `'${k}'`).join(", ")} (${what})`);
      }
      servers[name] = server;
    }
  }
  if (Object.keys(servers).length === 0) {
    throw new InitError(`No servers found in ${found.map(({ file }) => `'${file}'`).join(", ")} (under "${key}")`);
  }
  return { client: shape, files: found.map(({ file }) => file), servers, notes };
}

/** The parsed file, or undefined when it is not there (and was not named by the user). */
async function readClientFile(platform: Platform, file: string, named: boolean): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await platform.readTextFile(file);
  } catch (error) {
    const missing = (error as Error | undefined)?.name === "NotFound";
    if (missing && !named) return undefined;
    throw new (missing ? NoSuchFile : InitError)(`Cannot read '${file}': ${messageOf(error)}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(stripJsonComments(text.replace(/^\uFEFF/, "")));
  } catch {
    throw new InitError(`Invalid JSON in client configuration '${file}'`);
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new InitError(`Invalid client configuration '${file}': expected a JSON object`);
  }
  return data as Record<string, unknown>;
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

/** Whether any server has an `env` or `headers` value. */
function holdsSecrets(servers: Imported["servers"]): boolean {
  const filled = (field: unknown) => typeof field === "object" && field !== null && Object.keys(field).length > 0;
  return Object.values(servers).some((server) => filled(server.env) || filled(server.headers));
}

function report(platform: Platform, imported: Imported | undefined, toolbox: string, out: string, secret: boolean): string {
  const self = platform.selfCommand();
  const client = imported?.client ?? "claude-desktop";
  const lines: string[] = [];
  if (imported) {
    const names = Object.keys(imported.servers);
    lines.push(`Wrote '${out}': toolbox '${toolbox}' with ${names.length} server(s) from ${imported.files.map((f) => `'${f}'`).join(", ")}: ${names.join(", ")}`);
    if (secret) lines.push("It holds env or headers values, so only you can read it (mode 0600)");
    lines.push(...imported.notes);
  } else {
    lines.push(`Wrote '${out}': a starter configuration with one example toolbox '${toolbox}'; edit it for your servers`);
  }
  const check = [self.command, ...self.args, "check", "--config", out].map(quoteForDisplay).join(" ");
  lines.push(`Check it: ${check}`, "");
  const where = imported && imported.client !== "claude-code"
    ? `into '${imported.files[0]}' in place of the servers it now starts`
    : client === "claude-code" ? "in a terminal" : "into your MCP client's configuration";
  lines.push(`Then paste this ${where}:`, pasteBlock(client, self.command, [...self.args, "--config", out]), "");
  return lines.join("\n");
}

function quoteForDisplay(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word}'`;
}
