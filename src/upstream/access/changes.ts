/**
 * What a change to the `serve` key revokes while serving over HTTP: the clients whose sessions and
 * hubs must end at once because the token they came with, or the grants they were given, no longer
 * stand. A client removed from `serve.clients`, given a new token or other toolboxes; every JWT
 * subject when `serve.oauth` changed; the local user when tokens became required, and every named
 * client when they no longer are.
 */
import type { ServeClientConfig, ServeConfig } from "../../config/index.ts";
import { tokensRequired } from "./binding.ts";
import { LOCAL_USER } from "./identity.ts";

/** Whether the sessions of the client of that name are revoked by going from `previous` to `next`. */
export function revokedBy(previous: ServeConfig | undefined, next: ServeConfig | undefined): (name: string) => boolean {
  const before = tokensRequired(previous);
  const after = tokensRequired(next);
  const oauthChanged = JSON.stringify(previous?.oauth) !== JSON.stringify(next?.oauth);
  const was = previous?.clients ?? {};
  const is = next?.clients ?? {};
  return (name) => {
    if (name === LOCAL_USER.name) return before !== after && after;
    if (!after) return true;
    const old = Object.hasOwn(was, name) ? was[name] : undefined;
    const now = Object.hasOwn(is, name) ? is[name] : undefined;
    // A subject of a JWT: it stands while the authorization server is the same.
    if (old === undefined && now === undefined) return oauthChanged;
    // Its secrets are not who it is: a change to them restarts its own servers (toolboxes/pool.ts), not its sessions.
    return JSON.stringify(old && who(old)) !== JSON.stringify(now && who(now));
  };
}

function who(
  { secrets: _secrets, secretsUnreadable: _unreadable, ...client }: ServeClientConfig,
): Omit<ServeClientConfig, "secrets" | "secretsUnreadable"> {
  return client;
}

/** The serve key without what only the next start reads (the idle time, which the endpoint's sweep was set up with). */
export function accessOf(serve: ServeConfig | undefined): string {
  if (serve === undefined) return "";
  const { sessionIdleMinutes: _idle, ...access } = serve;
  return JSON.stringify(access);
}
