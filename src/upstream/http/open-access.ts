/**
 * The Authenticate of a workbench served on loopback without tokens: every request is the one
 * local user's, who may use every toolbox. (Tokens and grants come with `serve.clients` and
 * `serve.oauth`.)
 */
import { type Authenticate, LOCAL_CLIENT } from "../client-identity.ts";

export const openAccess: Authenticate = () => Promise.resolve(LOCAL_CLIENT);

/** True for a host name that reaches only this machine. */
export function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "::1" || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}
