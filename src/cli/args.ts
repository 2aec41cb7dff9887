/** The command line: `mcp-workbench [--config PATH]`, `auth ...`, plus --help and --version. */
import { type AuthCommand, parseAuthArgs } from "./auth-args.ts";

export type CliCommand =
  | { kind: "serve"; configPath?: string }
  | { kind: "help" }
  | { kind: "version" }
  | AuthCommand
  | { kind: "usage-error"; message: string };

export function parseArgs(args: readonly string[]): CliCommand {
  if (args[0] === "auth") return parseAuthArgs(args.slice(1));
  let configPath: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--help" || arg === "-h") return { kind: "help" };
    if (arg === "--version" || arg === "-V") return { kind: "version" };
    if (arg === "--config" || arg.startsWith("--config=")) {
      const value = arg === "--config" ? args[++i] : arg.slice("--config=".length);
      if (value === undefined || value === "") {
        return { kind: "usage-error", message: "Option '--config' needs a path: --config PATH" };
      }
      configPath = value;
      continue;
    }
    const what = arg.startsWith("-") ? "option" : "argument";
    return { kind: "usage-error", message: `Unknown ${what} '${arg}' (see --help)` };
  }
  return { kind: "serve", configPath };
}

export function helpText(name: string, version: string): string {
  return `${name} ${version}
One MCP server in front of many: groups MCP servers into toolboxes behind two tools,
open_toolbox and use_tool. Speaks MCP over stdio; start it from an MCP client.

Usage:
  ${name} [--config PATH]
  ${name} auth TOOLBOX SERVER [--config PATH] [--no-browser]   Log in to a remote server (OAuth)

Options:
  --config PATH   Configuration file (default: $WORKBENCH_CONFIG, else ./workbench-config.json)
  -h, --help      Print this help and exit
  -V, --version   Print the version and exit
`;
}
