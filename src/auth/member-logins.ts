/**
 * A team member's own logins to remote servers that need OAuth (issue 49 §3): kept in the member
 * vault (encrypted with WORKBENCH_SECRETS_KEY, bound to the member), one secret per server named
 * `LOGIN_` and a digest of the server's URL, never in the operator's token files. The provider
 * reads and writes them as it reads the operator's (oauth-provider.ts, through LoginRecords).
 */
import type { AuthRecord, LoginRecords } from "./auth-store.ts";
import type { MemberVault } from "./member-vault.ts";
import { displayUrl } from "../address/redact.ts";
import { isObject } from "../protocol/json-object.ts";

/** The name of the vault's secret that holds `member`'s login to the server at `serverUrl`. */
export async function loginName(serverUrl: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(serverUrl)));
  return `LOGIN_${[...digest.slice(0, 10)].map((byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

export function memberLogins(vault: MemberVault, member: string): LoginRecords {
  return {
    async pathFor() {
      return `${vault.where} (client '${member}')`;
    },
    async load(serverUrl) {
      const empty: AuthRecord = { server: displayUrl(serverUrl) };
      const text = (await vault.values(member))[await loginName(serverUrl)];
      if (text === undefined) return empty;
      try {
        const record = JSON.parse(text) as unknown;
        return isObject(record) ? { ...record as unknown as AuthRecord, server: empty.server } : empty;
      } catch {
        return empty;
      }
    },
    async save(serverUrl, record) {
      await vault.put({ client: member, name: await loginName(serverUrl), server: displayUrl(serverUrl) }, JSON.stringify(record));
      return vault.where;
    },
  };
}
