/**
 * The secrets members provide themselves (issue 49), for the `${client:NAME}` of a server: each
 * value sealed (vault-seal.ts) under WORKBENCH_SECRETS_KEY and kept where the workbench keeps it
 * (vault-shelves.ts): the shared store when replicas share one, so that each finds what a member
 * provided through another, else a private file. Without a key nothing could keep the values safe
 * on disk, so they stay in the process's memory and are lost at exit, which it says once. Names,
 * dates and the server that asked are in clear: `secrets list` and `forget` need no key.
 */
import type { LoginSupport } from "../platform/types.ts";
import type { Store } from "../store/store.ts";
import { SECRET_NAME } from "../config/member-secrets.ts";
import { authDir } from "./auth-store.ts";
import { MAKE_KEY, processKey, readVaultKey, seal, unseal } from "./vault-seal.ts";
import { SECRETS_KEY_VARIABLE } from "../config/secret-variables.ts";
import { FileShelf, MemoryShelf, type SealedRecord, type Shelf, StoreShelf, type VaultEntry, type VaultFiles } from "./vault-shelves.ts";

export type { VaultEntry };

export interface VaultOptions {
  env: Record<string, string | undefined>;
  files: VaultFiles;
  /** The file it is kept in when no shared store is given (vaultFile gives the default). */
  file: string;
  /** A shared one (Redis) keeps it there instead of the file; one of a process's own does not. */
  store?: Store;
  log(line: string): void;
  /**
   * "names": opened for `list` and `forget` only (the `secrets` command): where it is kept with a
   * key, without reading one, so that a member's secrets can be forgotten even once the key is
   * lost; `put` and `values` refuse. Default "values".
   */
  access?: "values" | "names";
}

/** The longest value kept (UTF-8 bytes): a token, a key or a certificate, not a file. */
export const MAX_VALUE_BYTES = 16 * 1024;
/** The longest name of the server that asked (it is only for people to read). */
const MAX_SERVER_LENGTH = 256;

/** `<authDir>/member-secrets.json`: next to the logins of remote servers, in the user's config folder. */
export function vaultFile(env: Record<string, string | undefined>, os: LoginSupport["os"]): string {
  const dir = authDir(env, os);
  const separator = dir.includes("\\") && !dir.includes("/") ? "\\" : "/";
  return `${dir}${separator}member-secrets.json`;
}

export class MemberVault {
  /** Where it is kept, for messages: a file's path, the store's name, or memory and why. */
  readonly where: string;
  /** The records already said to be unreadable: once each, not at every call. */
  readonly #logged = new Set<string>();

  private constructor(
    private readonly shelf: Shelf,
    private readonly key: CryptoKey | undefined,
    private readonly log: (line: string) => void,
  ) {
    this.where = shelf.where;
  }

  static async open(options: VaultOptions): Promise<MemberVault> {
    const { log, store } = options;
    const where = store?.shared ? store.name : options.file;
    let said = false;
    const malformed = () => {
      if (!said) log(`Records in '${where}' that are not secrets as the workbench writes them are left out`);
      said = true;
    };
    const kept = store?.shared ? new StoreShelf(store, malformed) : new FileShelf(options.file, options.files, malformed);
    if (options.access === "names") return new MemberVault(kept, undefined, log);
    const key = await readVaultKey(options.env);
    if (key !== undefined) return new MemberVault(kept, key, log);
    log(
      `Secrets members provide are kept in memory only and lost at exit: to keep them, encrypted, in '${kept.where}', ` +
        `set ${SECRETS_KEY_VARIABLE} (make one with '${MAKE_KEY}')`,
    );
    return new MemberVault(new MemoryShelf(`memory (${SECRETS_KEY_VARIABLE} is not set)`), await processKey(), log);
  }

  /** Keeps `value` as member `client`'s secret `name` (replacing an older one). */
  async put(entry: { client: string; name: string; server?: string }, value: string): Promise<void> {
    const key = this.#key("keep a value");
    checkEntry(entry, value);
    const { client, name, server } = entry;
    const sealed = await seal(key, client, name, value);
    await this.shelf.put({ client, name, savedAt: new Date().toISOString(), ...(server !== undefined && { server }), sealed });
  }

  /** The member's provided secrets, decrypted: name -> value (entries that cannot be decrypted are left out, logged once). */
  async values(client: string): Promise<Record<string, string>> {
    const key = this.#key("read values");
    const values: [string, string][] = [];
    for (const record of await this.shelf.read(client)) {
      if (!SECRET_NAME.test(record.name)) continue;
      const value = await unseal(key, record.client, record.name, record.sealed);
      if (value === undefined) this.#unreadable(record);
      else values.push([record.name, value]);
    }
    // Own properties whatever the name ("__proto__" is one): never the prototype's.
    return Object.fromEntries(values);
  }

  /** Names, dates and the servers that asked, of one member or everyone's; never values. */
  async list(client?: string): Promise<VaultEntry[]> {
    return entriesOf(await this.shelf.read(client));
  }

  /** Removes a member's secret `name`, or all theirs, or everyone's (`client` undefined); what was removed. */
  async forget(client?: string, name?: string): Promise<VaultEntry[]> {
    return entriesOf(await this.shelf.remove(client, name));
  }

  #key(what: string): CryptoKey {
    if (this.key === undefined) throw new Error(`The secrets in '${this.where}' were opened for their names only: cannot ${what}`);
    return this.key;
  }

  #unreadable(record: SealedRecord): void {
    const id = JSON.stringify([record.client, record.name, record.savedAt]);
    if (this.#logged.has(id)) return;
    this.#logged.add(id);
    this.log(
      `Secret '${record.name}' that client '${record.client}' provided cannot be read with this ${SECRETS_KEY_VARIABLE} ` +
        `(sealed with another key, or altered): left out until they provide it again`,
    );
  }
}

/** A value to keep, checked: whose, which name, and a bounded length. */
function checkEntry(entry: { client: string; name: string; server?: string }, value: string): void {
  const { client, name, server } = entry;
  if (typeof client !== "string" || client === "") throw new Error("A provided secret needs the client it is for");
  if (typeof name !== "string" || !SECRET_NAME.test(name)) {
    throw new Error(`Secret name '${String(name)}' is not one: letters, digits and '_', not first a digit`);
  }
  if (typeof value !== "string" || value === "") throw new Error(`Secret '${name}' has no value: to remove it, forget it`);
  const bytes = new TextEncoder().encode(value).length;
  if (bytes > MAX_VALUE_BYTES) throw new Error(`Secret '${name}' is too long: ${bytes} bytes, at most ${MAX_VALUE_BYTES}`);
  if (server !== undefined && (typeof server !== "string" || server.length > MAX_SERVER_LENGTH)) {
    throw new Error(`The server that asked for secret '${name}' is not named in at most ${MAX_SERVER_LENGTH} characters`);
  }
}

/** Records without their values, by member and name. */
function entriesOf(records: SealedRecord[]): VaultEntry[] {
  return records
    .map(({ client, name, savedAt, server }): VaultEntry => ({ client, name, savedAt, ...(server !== undefined && { server }) }))
    .sort((a, b) => a.client === b.client ? compare(a.name, b.name) : compare(a.client, b.client));
}

const compare = (a: string, b: string) => a < b ? -1 : a > b ? 1 : 0;
