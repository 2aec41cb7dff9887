/** The command line of `mcp-workbench auth TOOLBOX SERVER [--config PATH] [--no-browser]`. */

export interface AuthCommand {
  kind: "auth";
  toolbox: string;
  server: string;
  configPath?: string;
  /** False with --no-browser: the URL is only printed. */
  browser: boolean;
}

export function parseAuthArgs(args: readonly string[]): AuthCommand | { kind: "usage-error"; message: string } {
  const names: string[] = [];
  let configPath: string | undefined;
  let browser = true;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--no-browser") {
      browser = false;
    } else if (arg === "--config" || arg.startsWith("--config=")) {
      const value = arg === "--config" ? args[++i] : arg.slice("--config=".length);
      if (value === undefined || value === "") {
        return { kind: "usage-error", message: "Option '--config' needs a path: --config PATH" };
      }
      configPath = value;
    } else if (arg.startsWith("-")) {
      return { kind: "usage-error", message: `Unknown option '${arg}' for 'auth' (see --help)` };
    } else {
      names.push(arg);
    }
  }
  if (names.length !== 2) {
    return { kind: "usage-error", message: "Command 'auth' needs a toolbox and a server: auth TOOLBOX SERVER" };
  }
  const [toolbox, server] = names;
  return { kind: "auth", toolbox, server, configPath, browser };
}
