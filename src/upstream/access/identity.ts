/**
 * Who a session works for (upstream/client-identity.ts names it ClientIdentity): what an
 * authenticator answers. Here, below the session, so that both may use it; nothing else loads
 * with it, as stdio serving needs it at start.
 */
import { LOCAL_CLIENT_NAME } from "../../config/client-variable.ts";

export interface Identity {
  /** A key of `serve.clients`, a token's subject, or "local" over stdio and loopback without tokens. */
  readonly name: string;
  /** The toolboxes it may see and use: "*" for every one. */
  readonly toolboxes: "*" | readonly string[];
}

/** The local user: the one identity over stdio, on loopback without tokens and of the subcommands, named "local". */
export const LOCAL_USER: Identity = { name: LOCAL_CLIENT_NAME, toolboxes: "*" };
