/** OAuth for remote servers while the workbench serves a client: stored tokens, refreshed by the SDK. */
import type { OAuthClientProvider } from "../protocol/sdk-remote.ts";
import { resolveConfigPath, type RemoteServerConfig } from "../config/index.ts";
import { ClientCredentialsLogin } from "./client-credentials.ts";
import type { RecheckedLogin } from "./token-recheck.ts";
import { NAME } from "../protocol/version.ts";
import type { AuthStore } from "./auth-store.ts";
import { serverUrlOf } from "../address/server-url.ts";
import { WorkbenchOAuthProvider } from "./oauth-provider.ts";

export interface RemoteAuth {
  provider(target: { toolbox: string; server: string; config: RemoteServerConfig }): OAuthClientProvider & RecheckedLogin;
}

/** Logins `auth` stored, refreshed as needed; client credentials where the server is configured so. */
export function storedLogins(store: AuthStore, configPath: string, readTextFile: (path: string) => Promise<string>): RemoteAuth {
  return {
    provider: ({ toolbox, server, config }) =>
      clientCredentialsOf(config, configPath, readTextFile) ?? new WorkbenchOAuthProvider({
        store,
        serverUrl: serverUrlOf(config),
        oauth: config.oauth,
        mode: { kind: "serve", loginCommand: (scope) => loginCommand(toolbox, server, configPath, scope) },
      }),
  };
}

/** The provider of a server configured with grant "client_credentials", or undefined. */
export function clientCredentialsOf(
  config: RemoteServerConfig,
  configPath: string,
  readTextFile: (path: string) => Promise<string>,
): ClientCredentialsLogin | undefined {
  const { oauth } = config;
  if (oauth?.grant !== "client_credentials" || oauth.clientId === undefined) return undefined;
  const folder = configPath.slice(0, Math.max(configPath.lastIndexOf("/"), configPath.lastIndexOf("\\")));
  const keyFile = oauth.privateKeyJwt && resolveConfigPath({ flag: oauth.privateKeyJwt.keyFile, env: {}, cwd: folder });
  return new ClientCredentialsLogin({ oauth: { ...oauth, clientId: oauth.clientId }, keyFile, readTextFile });
}

/** The command line that logs in to one server, quoted for a POSIX shell where needed. */
export function loginCommand(toolbox: string, server: string, configPath: string, scope?: string): string {
  const scopes = scope === undefined ? [] : ["--scope", scope];
  return [NAME, "auth", toolbox, server, ...scopes, "--config", configPath].map(shellWord).join(" ");
}

function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
