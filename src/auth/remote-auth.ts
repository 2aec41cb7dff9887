/** OAuth for remote servers while the workbench serves a client: stored tokens, refreshed by the SDK. */
import type { OAuthClientProvider } from "../protocol/sdk-remote.ts";
import { resolveConfigPath, type RemoteServerConfig } from "../config/index.ts";
import { ClientCredentialsLogin } from "./client-credentials.ts";
import type { RecheckedLogin } from "./token-recheck.ts";
import { NAME } from "../protocol/version.ts";
import type { AuthStore } from "./auth-store.ts";
import { serverUrlOf } from "../address/server-url.ts";
import { WorkbenchOAuthProvider } from "./oauth-provider.ts";
import type { MemberVault } from "./member-vault.ts";
import { memberLogins } from "./member-logins.ts";

export interface RemoteAuth {
  /** `client` and `vault`: a team member's server, whose login is their own, kept in the member vault (member-logins.ts). */
  provider(target: LoginTarget): OAuthClientProvider & RecheckedLogin;
}

export interface LoginTarget {
  toolbox: string;
  server: string;
  config: RemoteServerConfig;
  client?: string;
  vault?: MemberVault;
}

/** Logins `auth` stored, refreshed as needed; client credentials where the server is configured so. */
export function storedLogins(store: AuthStore, configPath: string, readTextFile: (path: string) => Promise<string>): RemoteAuth {
  return {
    provider: ({ toolbox, server, config, client, vault }) => {
      const loginCommandOf = (scope?: string) => loginCommand(toolbox, server, configPath, scope);
      // A member's own login: never the operator's files, never another member's.
      const member = client !== undefined && vault !== undefined ? client : undefined;
      const mode = member === undefined ? { kind: "serve" as const, loginCommand: loginCommandOf } : {
        kind: "serve" as const,
        loginCommand: loginCommandOf,
        instead: `client '${member}' logs in to it as themselves, on the page a call of this server asks them to open ` +
          "(a client with URL elicitation asks)",
      };
      return clientCredentialsOf(config, configPath, readTextFile) ?? new WorkbenchOAuthProvider({
        store: member === undefined ? store : memberLogins(vault!, member),
        serverUrl: serverUrlOf(config),
        oauth: config.oauth,
        mode,
      });
    },
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
