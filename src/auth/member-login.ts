/**
 * A team member's own OAuth login to a remote server (issue 49 §3), in two halves, as "connect your
 * account" runs it: start() registers the workbench (redirect: the workbench's own
 * `/connect/callback` on the member's address) and gives the authorization URL the member's client
 * is asked to open; the callback page hands the code over the store to the call that asked, whose
 * finish() trades it for tokens, kept in the member's vault (member-logins.ts). The PKCE verifier
 * never leaves the process that started the login.
 */
import type { RemoteServerConfig } from "../config/index.ts";
import { serverUrlOf } from "../address/server-url.ts";
import type { MemberVault } from "./member-vault.ts";
import { memberLogins } from "./member-logins.ts";
import { joinScopes, WorkbenchOAuthProvider } from "./oauth-provider.ts";
import { challengeOf } from "./challenge.ts";
import { oauthFailureText } from "./oauth-failure.ts";

export interface LoginStart {
  client: string;
  config: RemoteServerConfig;
  /** Where the authorization server sends the member's browser back to: the workbench's callback on their address. */
  redirectUrl: string;
  /** Scopes a refusal asked for besides the challenge's and the configured ones. */
  scope?: string;
}

/** A login under way: its state (the page's id), the URL to open, and the end of it. */
export interface PendingLogin {
  state: string;
  url: string;
  finish(code: string): Promise<void>;
}

/** The login begun; undefined when the server needs none, or the member's login holds already. */
export async function startLogin(vault: MemberVault, start: LoginStart): Promise<PendingLogin | undefined> {
  const { auth } = await import("../protocol/sdk-remote.ts");
  const { config } = start;
  const serverUrl = serverUrlOf(config);
  const challenge = await challengeOf(config);
  if (challenge.open) return undefined;
  const scope = joinScopes(start.scope, challenge.scope, config.oauth?.scopes?.join(" "));
  const { resourceMetadataUrl } = challenge;
  let url: URL | undefined;
  const provider = new WorkbenchOAuthProvider({
    store: memberLogins(vault, start.client),
    serverUrl,
    oauth: config.oauth,
    mode: { kind: "login", redirectUrl: start.redirectUrl, scope, onAuthorizationUrl: (shown) => (url = shown) },
  });
  const started = await auth(provider, { serverUrl, scope, resourceMetadataUrl }).catch(plainly);
  if (started !== "REDIRECT" || url === undefined) return undefined;
  return {
    state: provider.state(),
    url: url.href,
    async finish(code) {
      const finished = await auth(provider, { serverUrl, scope, resourceMetadataUrl, authorizationCode: code }).catch(plainly);
      if (finished !== "AUTHORIZED") throw new Error("the authorization server did not issue tokens");
    },
  };
}

/** The SDK's error, said plainly (no schema or parser dump). */
function plainly(error: unknown): never {
  throw new Error(oauthFailureText(error), { cause: error });
}
