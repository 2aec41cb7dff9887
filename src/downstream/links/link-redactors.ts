/**
 * What a remote server's link masks: its configured secrets, the member's values it runs with
 * (`${client:NAME}`), a password in its URL, and the member's exchanged token (auth.tokenExchange),
 * which changes while the link lives. `all` masks what we say about it; `messages` what it sends
 * (narrower, see Redactor.forServerMessages).
 */
import type { RemoteServerConfig } from "../../config/index.ts";
import { memberValuesOf } from "../../config/member-secrets.ts";
import { Redactor } from "../../address/redact.ts";

export interface LinkRedactors {
  readonly all: Redactor;
  readonly messages: Redactor;
}

export function linkRedactors(config: RemoteServerConfig, own: readonly string[]): LinkRedactors {
  const values = [...own, ...memberValuesOf(config)];
  return { all: Redactor.forServer(config).with(values), messages: Redactor.forServerMessages(config).with(values) };
}
