/**
 * How a server session gets its link, each time it needs one (at start, after a crash, for a new
 * session): a child on stdio, or a URL; either wrapped so that it finds out at initialize whether
 * its server speaks 2026-07-28 or 2025-11-25.
 */
import { isRemote, type TokenExchangeSettings } from "../config/index.ts";
import { LOCAL_CLIENT_NAME } from "../config/client-variable.ts";
import type { ExchangedToken } from "../auth/token-exchange.ts";
import { EraLink } from "./era/era-link.ts";
import { type ServerTarget, logPrefix, SERVER_ROOM_BYTES, type ServerLink } from "./links/link.ts";
import { ByteRoom } from "../transport/byte-room.ts";
import { StdioLink } from "./links/stdio-link.ts";
import { configuredCredentials } from "../address/request-target.ts";
import type { ServerSessionHost } from "./session-options.ts";

/** A child is spawned at once (and may throw); a remote server's link is made when first asked for. */
export function openLinks(target: ServerTarget, host: ServerSessionHost): () => ServerLink | Promise<ServerLink> {
  const log = (text: string) => host.writeStderr(`${logPrefix(target)} ${text}\n`);
  const { config } = target;
  const era = (link: ServerLink) => new EraLink(link, config, host.eras);
  // Each link has one room for what goes to its server, whichever way it goes (issue 38).
  const room = () => new ByteRoom(SERVER_ROOM_BYTES, host.sendGate);
  if (!isRemote(config)) {
    return () => {
      const link = StdioLink.spawn({ ...target, config }, host, log, room());
      return link instanceof Promise ? link.then(era) : era(link);
    };
  }
  // The SDK's HTTP code loads with the first remote server, not at start-up.
  return async () => {
    const { HttpLink } = await import("./links/http-link.ts");
    // Credentials in the configuration are the login: such a server never goes down the OAuth path.
    const exchange = config.auth && exchangeOf(target, config.auth.tokenExchange, host);
    const asIs = configuredCredentials(config) !== undefined || exchange !== undefined;
    const authProvider = asIs ? undefined : host.auth?.provider({ ...target, config, vault: host.vault });
    const traceHeaders = host.telemetry?.tracing === true;
    return era(new HttpLink({ config, authProvider, exchange, log, readGate: host.readGate, room: room(), traceHeaders }));
  };
}

/** The member's exchanged token for a server with `auth.tokenExchange`; a host without exchanges has none to give. */
function exchangeOf(target: ServerTarget, settings: TokenExchangeSettings, host: ServerSessionHost): ExchangedToken {
  const member = target.client ?? LOCAL_CLIENT_NAME;
  const server = `${target.toolbox}/${target.server}`;
  return host.tokenExchange?.for(member, settings, server) ?? {
    token: () => Promise.reject(new Error(`Server '${server}' gets each member's token by token exchange (auth.tokenExchange), ` +
      "which only serving over HTTP does")),
    refused: () => {},
  };
}
