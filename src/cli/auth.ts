/**
 * `mcp-workbench auth TOOLBOX SERVER`: the OAuth login of one remote server, in a terminal: the
 * authorization URL is printed and opened in the browser (see auth/login.ts for the flow).
 */
import type { Platform } from "../platform/types.ts";
import { isRemote } from "../config/index.ts";
import { clientCredentialsOf } from "../auth/remote-auth.ts";
import { checkClientCredentials } from "./auth-client-credentials.ts";
import { messageOf } from "../protocol/errors.ts";
import type { SubcommandArgs } from "./args.ts";
import { EXIT_USAGE, loadForCommand, sayError } from "./common.ts";
import { authDir, AuthStore } from "../auth/auth-store.ts";
import { Redactor } from "../address/redact.ts";
import { toolboxNotFound } from "../tools/lookup.ts";
import { logIn } from "../auth/login.ts";
import { NoLoginNeeded } from "../auth/oauth-failure.ts";
import { configuredCredentials } from "../address/request-target.ts";

export async function runAuth(platform: Platform, args: SubcommandArgs): Promise<number> {
  const say = (text: string) => sayError(platform, text);
  const loaded = await loadForCommand(platform, args.configPath);
  if (!loaded) return EXIT_USAGE;
  const { config } = loaded;
  const [toolbox, server] = args.positionals;
  const browser = args.options["--no-browser"] !== true;
  const toolboxConfig = Object.hasOwn(config.toolboxes, toolbox) ? config.toolboxes[toolbox] : undefined;
  if (!toolboxConfig) {
    say(toolboxNotFound(config, toolbox, loaded.path));
    return EXIT_USAGE;
  }
  const serverConfig = Object.hasOwn(toolboxConfig.mcpServers, server) ? toolboxConfig.mcpServers[server] : undefined;
  if (!serverConfig) {
    say(`Server '${server}' not found in toolbox '${toolbox}' of '${loaded.path}'`);
    return EXIT_USAGE;
  }
  if (!isRemote(serverConfig)) {
    say(`Server '${server}' in toolbox '${toolbox}' is started as a command: only servers with a url log in`);
    return EXIT_USAGE;
  }
  const credentials = configuredCredentials(serverConfig);
  if (credentials !== undefined) {
    say(
      `Server '${server}' in toolbox '${toolbox}' needs no OAuth login: the workbench sends ${credentials}. To change the token, ` +
        `edit that header; 'mcp-workbench check' shows whether the server accepts it`,
    );
    return EXIT_USAGE;
  }
  const redactor = Redactor.forServer(serverConfig);
  const machine = clientCredentialsOf(serverConfig, loaded.path, platform.readTextFile);
  if (machine) return await checkClientCredentials(platform, machine, { toolbox, server, serverConfig, redactor });
  const store = new AuthStore(authDir(platform.env, platform.os), platform);
  try {
    const saved = await logIn({
      serve: platform.serve,
      store,
      config: serverConfig,
      scope: typeof args.options["--scope"] === "string" ? args.options["--scope"] : undefined,
      doneText: "Logged in. You can close this tab and go back to the terminal.",
      onAuthorizationUrl: (url) => {
        platform.writeStderr(`Open this URL to log in to server '${server}' (toolbox '${toolbox}'):\n${url.href}\n`);
        if (browser) platform.openBrowser(url.href);
      },
    });
    platform.writeStderr(`Logged in to server '${server}' in toolbox '${toolbox}'; saved in ${saved}\n`);
    return 0;
  } catch (error) {
    if (error instanceof NoLoginNeeded) {
      platform.writeStderr(
        `Server '${server}' in toolbox '${toolbox}' needs no login: it answered initialize and tools/list without a token\n`,
      );
      return 0;
    }
    say(`Login to server '${server}' in toolbox '${toolbox}' failed: ${redactor.redact(messageOf(error))}`);
    return 1;
  }
}
