/**
 * Who may do what when serving over HTTP: what the HTTP handler and the serve command take from
 * this folder. Sessions take their view of the configuration from grants.ts.
 */
export { authenticatorFor, type AuthenticatorOptions, bearerToken, type Identity, LOCAL_USER } from "./authenticator.ts";
export { bindingRefusal, tokensRequired } from "./binding.ts";
export { accessOf, revokedBy } from "./changes.ts";
export { protectedResourceMetadata, RESOURCE_METADATA_PATH } from "./metadata.ts";
export { originRefusal } from "./origin.ts";
export { grantedView } from "./grants.ts";
export { refusedClients, serveLines, serveSummary, type ServeSummary } from "./summary.ts";
