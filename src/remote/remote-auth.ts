/** OAuth for remote servers, as the connections need it: a provider per server. */
import type { OAuthClientProvider } from "../sdk.ts";
import type { RemoteServerConfig } from "../config/index.ts";

export interface RemoteAuth {
  provider(target: { toolbox: string; server: string; config: RemoteServerConfig }): OAuthClientProvider;
}
