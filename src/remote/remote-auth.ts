/** OAuth for remote servers while the workbench serves a client: stored tokens, refreshed by the SDK. */
import type { OAuthClientProvider } from "../sdk-remote.ts";
import type { RemoteServerConfig } from "../config/index.ts";
import { NAME } from "../version.ts";
import type { AuthStore } from "./auth-store.ts";
import { serverUrlOf } from "./server-url.ts";
import { WorkbenchOAuthProvider } from "./oauth-provider.ts";

export interface RemoteAuth {
  provider(target: { toolbox: string; server: string; config: RemoteServerConfig }): OAuthClientProvider;
}

export function storedLogins(store: AuthStore, configPath: string): RemoteAuth {
  return {
    provider: ({ toolbox, server, config }) =>
      new WorkbenchOAuthProvider({
        store,
        serverUrl: serverUrlOf(config),
        oauth: config.oauth,
        mode: { kind: "serve", loginCommand: loginCommand(toolbox, server, configPath) },
      }),
  };
}

/** The command line that logs in to one server, quoted for a POSIX shell where needed. */
export function loginCommand(toolbox: string, server: string, configPath: string): string {
  return [NAME, "auth", toolbox, server, "--config", configPath].map(shellWord).join(" ");
}

function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
