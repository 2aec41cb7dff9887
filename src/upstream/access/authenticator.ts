/**
 * Who sent an HTTP request: `authenticatorFor(serve, options)` is the `Authenticate` of
 * upstream/client-identity.ts. In order: a foreign Origin gets 403; without `serve.clients` and
 * `serve.oauth` everyone is the one local user (serving beyond loopback is refused at start, see
 * binding.ts); otherwise the bearer token is a static client's (by name), or a JWT of the issuer
 * (named after its `sub`, see client-names.ts; toolboxes by `toolbox:NAME` scopes), or the request
 * gets 401 and nothing else.
 */
import type { ServeConfig } from "../../config/index.ts";
import { tokensRequired } from "./binding.ts";
import { type JwtOptions, JwtVerifier, looksLikeJwt } from "./jwt.ts";
import { originRefusal } from "./origin.ts";
import { forbidden, insufficientScope, keysUnavailable, unauthorized } from "./refusals.ts";
import { type DigestCompare, StaticTokens } from "./static-tokens.ts";
import { type Identity, LOCAL_USER } from "./identity.ts";
import { clientNameOf } from "./client-names.ts";
import type { SubjectTokens } from "../../auth/subject-tokens.ts";

export { type Identity, LOCAL_USER };

export const SCOPE_PREFIX = "toolbox:";
export const ALL_TOOLBOXES_SCOPE = `${SCOPE_PREFIX}*`;

export interface AuthenticatorOptions extends JwtOptions {
  /** The configured toolboxes in file order: a token's grants are cut to these. */
  toolboxes: readonly string[];
  /** For tests: how two token digests are compared (the constant-time comparison when not said). */
  compare?: DigestCompare;
  /** Where each JWT subject's token is kept for token exchange (auth/token-exchange.ts). */
  subjects?: SubjectTokens;
}

export function authenticatorFor(
  serve: ServeConfig | undefined,
  options: AuthenticatorOptions,
): (request: Request) => Promise<Identity | Response> {
  const open = !tokensRequired(serve);
  const clients = new StaticTokens(serve?.clients ?? {}, options.compare);
  const jwt = serve?.oauth && new JwtVerifier(serve.oauth, options);
  return async (request) => {
    const refused = originRefusal(request, serve);
    if (refused) return refused;
    if (open) return LOCAL_USER;
    const token = bearerToken(request);
    if (token === undefined) return unauthorized(request, "A bearer token is required: send 'Authorization: Bearer <token>'", false, !!jwt);
    const client = clients.size > 0 ? await clients.find(token) : undefined;
    if (client) {
      const [name, { toolboxes }] = client;
      return { name, toolboxes };
    }
    if (!jwt || !looksLikeJwt(token)) return unauthorized(request, "The bearer token is not valid", true, !!jwt);
    const outcome = await jwt.verify(token);
    if (!outcome.ok) return outcome.keysUnavailable ? keysUnavailable(outcome.reason) : unauthorized(request, outcome.reason, true, true);
    const toolboxes = grantedBy(outcome.scopes, options.toolboxes);
    if (toolboxes !== "*" && toolboxes.length === 0) {
      // The caller was granted none: the challenge names no toolbox, only the scope that grants them all.
      return insufficientScope(request, ALL_TOOLBOXES_SCOPE, "The token grants no toolbox: it needs a scope 'toolbox:NAME' or 'toolbox:*'");
    }
    // Clients are kept apart by name (processes, ${WORKBENCH_CLIENT} files): a subject may not be a static client.
    const name = await clientNameOf(outcome.subject);
    if (name === LOCAL_USER.name) {
      return forbidden(
        `The token's subject '${LOCAL_USER.name}' is the name of the user over stdio: the two would share its processes and files`,
      );
    }
    if (clients.has(name)) {
      return forbidden(
        `The token's subject '${outcome.subject}' is the name of a client in serve.clients: the two would share its processes and files`,
      );
    }
    options.subjects?.remember(name, token, outcome.expiresAt);
    return { name, toolboxes };
  };
}

/** The token of `Authorization: Bearer <token>` (the scheme in any case), or undefined. */
export function bearerToken(request: Request): string | undefined {
  const match = /^Bearer +([^ ]+) *$/i.exec(request.headers.get("authorization") ?? "");
  return match?.[1];
}

/** The toolboxes that scopes grant: "*" for `toolbox:*`, else the configured ones named, in file order. */
export function grantedBy(scopes: readonly string[], toolboxes: readonly string[]): "*" | string[] {
  if (scopes.includes(ALL_TOOLBOXES_SCOPE)) return "*";
  const named = new Set(scopes.filter((scope) => scope.startsWith(SCOPE_PREFIX)).map((scope) => scope.slice(SCOPE_PREFIX.length)));
  return toolboxes.filter((toolbox) => named.has(toolbox));
}
