/**
 * "Connect your account" while serving over HTTP (issue 49 §3): the member vault where what members
 * provide is kept (encrypted with WORKBENCH_SECRETS_KEY), the flow of one-time pages in the
 * sessions' store, and the pages themselves. Opened when a server of the configuration names a
 * member's secret (`${client:NAME}`), or when members are served a remote server that nothing in
 * the file gives a token (each logs in to it as themselves); the pool then reads what members
 * provided at each start. A key that is no key stops serving before it starts, as a store does.
 */
import type { Platform } from "../../platform/types.ts";
import { isRemote, type ServerConfig, type WorkbenchConfig } from "../../config/index.ts";
import { configuredCredentials } from "../../address/request-target.ts";
import { tokensRequired } from "../access/index.ts";
import { usesSecrets } from "../../config/member-secrets.ts";
import type { Store } from "../../store/store.ts";
import type { ServerPool } from "../../toolboxes/pool.ts";
import { ConnectFlow } from "../../auth/connect-flow.ts";
import { MemberVault, vaultFile } from "../../auth/member-vault.ts";
import { messageOf } from "../../protocol/errors.ts";
import { SECRETS_KEY_VARIABLE } from "../../config/secret-variables.ts";
import { connectPage } from "./connect-page.ts";

/** A remote server a member may have to log in to as themselves: nothing in the file gives it a token. */
function mayLogIn(config: ServerConfig): boolean {
  return isRemote(config) && configuredCredentials(config) === undefined && !config.auth && config.oauth?.grant !== "client_credentials";
}

export interface ConnectServing {
  readonly flow: ConnectFlow;
  page(request: Request): Promise<Response>;
}

/** The flow and its page; undefined when no server uses a member's secret; why serving cannot start, as text. */
export async function openConnect(
  platform: Platform,
  config: WorkbenchConfig,
  parts: { store: Store; pool: ServerPool },
  log: (line: string) => void,
): Promise<ConnectServing | string | undefined> {
  const servers = Object.values(config.toolboxes).flatMap((toolbox) => Object.values(toolbox.mcpServers));
  if (!servers.some(usesSecrets) && !(tokensRequired(config.serve) && servers.some(mayLogIn))) return undefined;
  let vault: MemberVault;
  try {
    vault = await MemberVault.open({
      env: platform.env,
      files: platform,
      file: vaultFile(platform.env, platform.os),
      // Shared by replicas: what a member provided on one is read on the others.
      ...(parts.store.shared && { store: parts.store }),
      log,
    });
  } catch (error) {
    return `Cannot serve: ${messageOf(error)}`;
  }
  // Kept in one replica's memory (no key), what a member provides on another would never be read here.
  if (parts.store.shared && vault.where.startsWith("memory")) {
    const why = `with a shared store, set ${SECRETS_KEY_VARIABLE} (they are kept there, encrypted)`;
    log(`Members cannot provide secrets or log in as themselves: ${why}`);
    return undefined;
  }
  parts.pool.provideWith(vault);
  const flow = new ConnectFlow(parts.store, vault);
  return { flow, page: connectPage(flow, vault, log) };
}
