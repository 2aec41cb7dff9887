/** `mcp-workbench auth` for a server with grant "client_credentials": no login, a check that the credentials work. */
import { auth } from "../protocol/sdk-remote.ts";
import type { Platform } from "../platform/types.ts";
import type { RemoteServerConfig } from "../config/index.ts";
import { messageOf } from "../protocol/errors.ts";
import { sayError } from "./common.ts";
import type { ClientCredentialsLogin } from "../auth/client-credentials.ts";
import { challengeOf } from "../auth/challenge.ts";
import { joinScopes } from "../auth/oauth-provider.ts";
import type { Redactor } from "../address/redact.ts";
import { serverUrlOf } from "../address/server-url.ts";

/**
 * A server with grant "client_credentials" needs no login: the workbench gets its tokens itself.
 * `auth` gets one now, to show that the credentials work, and keeps nothing.
 */
export async function checkClientCredentials(
  platform: Platform,
  provider: ClientCredentialsLogin,
  target: { toolbox: string; server: string; serverConfig: RemoteServerConfig; redactor: Redactor },
): Promise<number> {
  const { toolbox, server, serverConfig, redactor } = target;
  try {
    const { resourceMetadataUrl, scope } = await challengeOf(serverConfig);
    const serverUrl = serverUrlOf(serverConfig);
    const result = await auth(provider, {
      serverUrl,
      resourceMetadataUrl,
      scope: joinScopes(scope, serverConfig.oauth?.scopes?.join(" ")),
    });
    if (result !== "AUTHORIZED") throw new Error("the authorization server did not issue a token");
    platform.writeStderr(
      `Server '${server}' in toolbox '${toolbox}' uses client credentials: a token was issued; ` +
        `the workbench gets its own tokens, no login is kept\n`,
    );
    return 0;
  } catch (error) {
    sayError(platform, `Client credentials of server '${server}' in toolbox '${toolbox}' failed: ${redactor.redact(messageOf(error))}`);
    return 1;
  }
}
