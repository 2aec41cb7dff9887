/**
 * The program: parse the command line; with no subcommand, load the configuration and serve MCP on
 * stdio until told to stop (serve.ts); with one, run it and exit with its code.
 */
import type { Platform } from "../platform/types.ts";
import { NAME, VERSION } from "../protocol/version.ts";
import { serve } from "../serve.ts";
import { helpText, parseArgs, type SubcommandArgs, type SubcommandName } from "./args.ts";
import { EXIT_USAGE, loadForCommand, writeStdout } from "./common.ts";
import { runServe } from "./serve.ts";
import { homeOf, userConfigFile } from "../config/user-file.ts";

export { EXIT_USAGE };

/**
 * Each subcommand's module is loaded when it runs, never to serve: what serving does not load
 * (the JSON Schema of the file, the client importers, the SDK's OAuth client) takes no memory.
 * tests/start-up-modules.test.ts checks that serving leaves them unloaded.
 */
const RUN: Record<SubcommandName, (platform: Platform, args: SubcommandArgs) => Promise<number>> = {
  serve: (platform, args) => runServe(platform, args),
  check: async (platform, args) => (await import("./check.ts")).runCheck(platform, args),
  tools: async (platform, args) => (await import("./tools.ts")).runTools(platform, args),
  call: async (platform, args) => (await import("./call.ts")).runCall(platform, args),
  approve: async (platform, args) => (await import("./approve.ts")).runApprove(platform, args),
  init: async (platform, args) => (await import("./init.ts")).runInit(platform, args),
  schema: async (platform) => (await import("./schema.ts")).runSchema(platform),
  auth: async (platform, args) => (await import("./auth.ts")).runAuth(platform, args),
  secrets: async (platform, args) => (await import("./secrets.ts")).runSecrets(platform, args),
};

/** The per-user configuration file, for help to name. */
function userFile(platform: Platform): string | undefined {
  const { env, cwd, os } = platform;
  const home = homeOf(env);
  return home === undefined ? undefined : userConfigFile({ os, home, cwd, env });
}

export async function run(platform: Platform): Promise<number> {
  const command = parseArgs(platform.args);
  const say = (text: string) => platform.writeStderr(`${text}\n`);
  switch (command.kind) {
    case "help":
      await writeStdout(platform, helpText(NAME, VERSION, command.subcommand, userFile(platform)));
      return 0;
    case "version":
      await writeStdout(platform, `${NAME} ${VERSION}\n`);
      return 0;
    case "usage-error":
      say(`${NAME}: ${command.message}`);
      return EXIT_USAGE;
    case "subcommand":
      // Serving is long-lived: start-up ends once it serves (see runServe).
      if (command.name === "serve") return await runServe(platform, command);
      // A subcommand is not a long-lived server: its memory matters less than its speed.
      platform.startupDone();
      return await RUN[command.name](platform, command);
  }

  const loaded = await loadForCommand(platform, command.configPath);
  if (!loaded) return EXIT_USAGE;
  return await serve(platform, loaded, command.toolboxes);
}
