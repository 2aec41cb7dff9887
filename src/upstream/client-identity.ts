/**
 * Who a session works for. Over stdio that is the one local user, who may use every toolbox; a
 * team served over HTTP has one identity per token (its name in `serve.clients`, or the token's
 * subject) with the toolboxes it was granted. The name keeps clients' server processes apart and
 * is `${WORKBENCH_CLIENT}` in a server's env and args. (Its shape is in access/identity.ts, below
 * this folder, where the authenticator that makes identities from tokens uses it too.)
 */
import { type Identity, LOCAL_USER } from "./access/identity.ts";

export type ClientIdentity = Identity;

/** The local user (README's glossary), one name for it everywhere. */
export { LOCAL_USER };

/**
 * Who sent an HTTP request, from its headers: the identity, or the response that refuses it
 * (401 without a valid token, 403 for a foreign Origin or a missing scope).
 */
export type Authenticate = (request: Request) => Promise<ClientIdentity | Response>;

/**
 * A client as far as what it may see goes: its name and its grants. Two tokens of one subject with
 * different scopes are two hubs (and sessions): a narrow token never reaches what a wide one opened.
 */
export function grantKey(client: ClientIdentity): string {
  const toolboxes = client.toolboxes === "*" ? "*" : [...client.toolboxes].sort();
  return JSON.stringify([client.name, toolboxes]);
}
