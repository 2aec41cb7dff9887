/**
 * The command line: `mcp-workbench [--config PATH]` serves MCP on stdio, as it always has; a
 * subcommand from the table below does one job for the operator instead. Options may stand before
 * or after a subcommand's arguments.
 */

export interface SubcommandSpec {
  /** Arguments and options after the name, for usage lines. */
  usage: string;
  summary: string;
  /** Options besides --config and --help: each a flag, or with the name of its value. */
  options: Record<string, { value?: string; about: string }>;
  /** Names of the positional arguments, required ones first; `optional` of them may be left out. */
  positionals: string[];
  optional?: number;
  /** The last positional may be given any number of times (`SECRET...`). */
  rest?: boolean;
  /** What --config means here, when it is not the file to read. */
  config?: string;
}

export const SUBCOMMANDS = {
  serve: {
    usage: "[--http [HOST:]PORT [--store URL]] [--toolboxes NAMES]",
    summary: "Serve MCP on stdio (the default), or over HTTP at http://HOST:PORT/mcp for many clients",
    options: {
      "--http": { value: "[HOST:]PORT", about: "Serve over HTTP on HOST (default 127.0.0.1) and PORT (0: any free port)" },
      "--toolboxes": { value: "NAMES", about: "On stdio, serve only these toolboxes, e.g. dev,docs (also $WORKBENCH_TOOLBOXES)" },
      "--store": {
        value: "URL",
        about: "Over HTTP, keep sessions in this store, shared by replicas: redis://HOST:PORT (over serve.store)",
      },
    },
    positionals: [],
  },
  check: {
    usage: "[--toolbox NAME] [--json]",
    summary: "Validate the file, start every server, report each one, stop them all",
    options: {
      "--toolbox": { value: "NAME", about: "Check the servers of one toolbox only" },
      "--json": { about: "Print one JSON document on stdout" },
    },
    positionals: [],
  },
  tools: {
    usage: "<toolbox> [--json]",
    summary: "List the tools of a toolbox, as open_toolbox returns them",
    options: { "--json": { about: "Print the full entries as JSON" } },
    positionals: ["toolbox"],
  },
  call: {
    usage: "<toolbox> <server> <tool> [ARGS]",
    summary: "Call one tool, as use_tool does; ARGS is a JSON object, @file, or - for stdin",
    options: {},
    positionals: ["toolbox", "server", "tool", "ARGS"],
    optional: 1,
  },
  approve: {
    usage: "<toolbox> <server> [tool] [--dry-run | --yes [--digest D]] [--client NAME]",
    summary: "Show how a server's withheld tools changed since they were pinned; approve them after a y on a terminal",
    options: {
      "--dry-run": { about: "Show what is pending and record nothing" },
      "--yes": { about: "Record without asking (needed when stdin is no terminal)" },
      "--digest": { value: "D", about: "Record only if what is pending is what the dry run that printed D showed" },
      "--client": {
        value: "NAME",
        about: "Start the server as it runs for this client (a server whose env or args use ${WORKBENCH_CLIENT})",
      },
    },
    positionals: ["toolbox", "server", "tool"],
    optional: 1,
  },
  init: {
    usage: "[--from SOURCE] [--project PATH] [--toolbox NAME] [--out PATH] [--merge | --force]",
    summary: "Write a configuration from an MCP client's servers (or a starter file without --from)",
    options: {
      "--from": {
        value: "SOURCE",
        about: "claude-desktop, claude-code, cursor, vscode, windsurf, or a path to such a file",
      },
      "--project": {
        value: "PATH",
        about: "The project folder whose servers are read (claude-code, cursor, vscode; default: the current folder)",
      },
      "--toolbox": { value: "NAME", about: "Name of the toolbox the servers go into (default: default)" },
      "--out": { value: "PATH", about: "Where to write (default: the per-user file)" },
      "--merge": { about: "Add the client's new servers to an existing file; the servers it has stay" },
      "--force": { about: "Overwrite an existing file" },
    },
    positionals: [],
    // The file init writes is the configuration that the other commands take with --config.
    config: "The same as --out: where to write",
  },
  schema: {
    usage: "",
    summary: "Print the JSON Schema of the configuration file",
    options: {},
    positionals: [],
  },
  auth: {
    usage: "<toolbox> <server> [--scope SCOPES] [--no-browser]",
    summary: "Log in to a remote server that needs OAuth and keep its tokens",
    options: {
      "--scope": { value: "SCOPES", about: "Scopes to ask for besides those the server names (space-separated)" },
      "--no-browser": { about: "Print the authorization URL instead of opening a browser" },
    },
    positionals: ["toolbox", "server"],
  },
  secrets: {
    usage: "list|forget [--client NAME | --all] [SECRET...]",
    summary: "List the secrets clients provided to serve --http (names and dates, never values), or forget them",
    options: {
      "--client": { value: "NAME", about: "Only this client's secrets (forget needs it, or --all)" },
      "--all": { about: "Forget every client's secrets (the SECRETs named, else all)" },
    },
    positionals: ["action", "SECRET"],
    optional: 1,
    rest: true,
  },
} satisfies Record<string, SubcommandSpec>;

export type SubcommandName = keyof typeof SUBCOMMANDS;

export interface SubcommandArgs {
  configPath?: string;
  /** Options given, by name: a value, or true for a flag. */
  options: Record<string, string | true>;
  positionals: string[];
}

export type CliCommand =
  | { kind: "serve"; configPath?: string; toolboxes?: string }
  | { kind: "help"; subcommand?: SubcommandName }
  | { kind: "version" }
  | { kind: "usage-error"; message: string }
  | { kind: "subcommand"; name: SubcommandName } & SubcommandArgs;

const CONFIG = "--config";
/** Serving on stdio takes it without the `serve` subcommand too. */
const TOOLBOXES = "--toolboxes";

export function parseArgs(args: readonly string[]): CliCommand {
  const name = subcommandOf(args);
  if (name !== undefined && !Object.hasOwn(SUBCOMMANDS, name)) {
    return { kind: "usage-error", message: `Unknown subcommand '${name}' (see --help)` };
  }
  const sub = name as SubcommandName | undefined;
  const read = readArgs(args, sub);
  if ("kind" in read) return read;
  if (sub === undefined) {
    const toolboxes = read.options[TOOLBOXES];
    return read.positionals.length === 0
      ? { kind: "serve", configPath: read.configPath, ...(typeof toolboxes === "string" && { toolboxes }) }
      : { kind: "usage-error", message: `Unknown argument '${read.positionals[0]}' (see --help)` };
  }
  return countPositionals(sub, read) ?? { kind: "subcommand", name: sub, ...read };
}

/** The options and positionals of the command line; help, version or a usage error end the read early. */
function readArgs(args: readonly string[], sub: SubcommandName | undefined): SubcommandArgs | CliCommand {
  const spec: SubcommandSpec | undefined = sub === undefined ? undefined : SUBCOMMANDS[sub];
  const read: SubcommandArgs = { configPath: undefined, options: {}, positionals: [] };
  let afterDashes = false;
  // The first positional is the subcommand's name (see subcommandOf).
  let nameSeen = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (afterDashes || arg === "-" || !arg.startsWith("-")) {
      if (sub !== undefined && !nameSeen) nameSeen = true;
      else read.positionals.push(arg);
      continue;
    }
    if (arg === "--") {
      afterDashes = true;
      continue;
    }
    if (arg === "--help" || arg === "-h") return { kind: "help", subcommand: sub };
    if (arg === "--version" || arg === "-V") return { kind: "version" };
    const equals = arg.indexOf("=");
    const option = equals === -1 ? arg : arg.slice(0, equals);
    const known = option === CONFIG
      ? { value: "PATH" }
      : sub === undefined && option === TOOLBOXES
      ? SUBCOMMANDS.serve.options[TOOLBOXES]
      : spec?.options[option];
    if (!known) return { kind: "usage-error", message: `Unknown option '${arg}' (see --help)` };
    if (known.value === undefined) {
      if (equals !== -1) return { kind: "usage-error", message: `Option '${option}' takes no value (see --help)` };
      read.options[option] = true;
      continue;
    }
    const value = equals === -1 ? args[++i] : arg.slice(equals + 1);
    if (value === undefined || value === "") {
      const what = known.value === "PATH" ? "a path" : "a value";
      return { kind: "usage-error", message: `Option '${option}' needs ${what}: ${option} ${known.value}` };
    }
    if (option === CONFIG) read.configPath = value;
    else read.options[option] = value;
  }
  return read;
}

/** A usage error when a subcommand is given fewer positionals than it needs or more than it takes. */
function countPositionals(sub: SubcommandName, { positionals }: SubcommandArgs): CliCommand | undefined {
  const spec: SubcommandSpec = SUBCOMMANDS[sub];
  const names = spec.positionals;
  const required = names.length - (spec.optional ?? 0);
  if (positionals.length < required) {
    return { kind: "usage-error", message: `Missing argument ${names[positionals.length]}: ${sub} ${spec.usage} (see --help)` };
  }
  if (!spec.rest && positionals.length > names.length) {
    return { kind: "usage-error", message: `Unexpected argument '${positionals[names.length]}' (see --help)` };
  }
  return undefined;
}

/** The first argument that is neither an option nor the value of --config. */
function subcommandOf(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") return args[i + 1];
    if (arg === CONFIG || arg === TOOLBOXES) i++;
    else if (arg === "-" || !arg.startsWith("-")) return arg;
  }
  return undefined;
}

/**
 * `userFile` is the per-user file `init` writes and serving reads last (src/config/user-file.ts):
 * undefined when there is no home folder to put it in.
 */
export function helpText(name: string, version: string, subcommand?: SubcommandName, userFile?: string): string {
  if (subcommand !== undefined) return subcommandHelp(name, subcommand, userFile);
  const width = Math.max(...Object.keys(SUBCOMMANDS).map((sub) => sub.length));
  const commands = Object.entries(SUBCOMMANDS).map(([sub, spec]) => `  ${sub.padEnd(width)}  ${spec.summary}`);
  return `${name} ${version}
One MCP server in front of many: groups MCP servers into toolboxes behind two tools,
open_toolbox and use_tool. Speaks MCP over stdio; start it from an MCP client.

Usage:
  ${name} [--config PATH]               Serve MCP on stdio
  ${name} --toolboxes dev,docs          Serve only those toolboxes (one agent's scope)
  ${name} serve --http [HOST:]PORT      Serve MCP over HTTP
  ${name} <command> [options] [--config PATH]

Commands:
${commands.join("\n")}

Options:
  --config PATH   ${configDefault(userFile)}
  -h, --help      Print this help (or a command's: ${name} <command> --help) and exit
  -V, --version   Print the version and exit
`;
}

/** Where the configuration is read when --config does not say: as locateConfig picks it. */
function configDefault(userFile: string | undefined): string {
  return `Configuration file (default: $WORKBENCH_CONFIG, else ./workbench-config.json, else ${userFile ?? "the per-user file"})`;
}

function subcommandHelp(name: string, sub: SubcommandName, userFile: string | undefined): string {
  const spec: SubcommandSpec = SUBCOMMANDS[sub];
  // init writes the per-user file when not told where.
  const about = (text: string) => userFile === undefined ? text : text.replace("the per-user file", `'${userFile}'`);
  const options = [
    ...Object.entries(spec.options).map(([option, help]) => [`${option}${help.value ? ` ${help.value}` : ""}`, about(help.about)]),
    ["--config PATH", spec.config ?? configDefault(userFile)],
    ["-h, --help", "Print this help and exit"],
  ];
  const width = Math.max(...options.map(([left]) => left.length));
  return `Usage: ${name} ${sub}${spec.usage ? ` ${spec.usage}` : ""}
${spec.summary}

Options:
${options.map(([left, about]) => `  ${left.padEnd(width)}  ${about}`).join("\n")}
`;
}
