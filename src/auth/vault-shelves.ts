/**
 * Where member-vault.ts keeps sealed secrets: a private JSON file (one workbench), a shared store
 * (replicas behind one address, each of which must find what a member provided through another),
 * or the process's memory (no key: nothing to keep them safe with). Each record holds the member,
 * the secret's name, when it was saved and which server asked, in clear, for people and for
 * `secrets list`; the value only sealed. What is read back is input: records of another shape are
 * left out, and said once.
 */
import type { Platform } from "../platform/types.ts";
import type { Store } from "../store/store.ts";
import { storeKey } from "../store/store.ts";
import { isObject } from "../protocol/json-object.ts";

export interface VaultEntry {
  client: string;
  name: string;
  /** When it was saved (ISO 8601). */
  savedAt: string;
  /** The server that asked for it ("toolbox/server"), for people. */
  server?: string;
}

/** An entry as kept: with its value sealed (vault-seal.ts). */
export interface SealedRecord extends VaultEntry {
  sealed: string;
}

export interface Shelf {
  /** Where it is, for messages. */
  readonly where: string;
  /** The records of one member, or everyone's. */
  read(client?: string): Promise<SealedRecord[]>;
  /** Keeps `record`, in place of the member's record of the same name. */
  put(record: SealedRecord): Promise<void>;
  /** Removes the records of `client` (all members' when undefined) named `name` (all when undefined); those removed. */
  remove(client?: string, name?: string): Promise<SealedRecord[]>;
}

export type VaultFiles = Pick<Platform, "readTextFile" | "writePrivateFile">;

/** How long a member's provided secrets stay in a shared store unchanged: renewed by each one they provide. */
export const STORE_TTL_MS = 400 * 24 * 60 * 60 * 1000;

/** A record read back, checked; undefined when it is not one the vault writes. */
export function recordOf(value: unknown): SealedRecord | undefined {
  if (!isObject(value)) return undefined;
  const { client, name, savedAt, server, sealed } = value;
  const strings = [client, name, savedAt, sealed].every((field) => typeof field === "string" && field !== "");
  if (!strings || (server !== undefined && typeof server !== "string")) return undefined;
  const record = { client, name, savedAt, sealed } as SealedRecord;
  return typeof server === "string" ? { ...record, server } : record;
}

const matches = (record: VaultEntry, client?: string, name?: string) =>
  (client === undefined || record.client === client) && (name === undefined || record.name === name);

/** One process's own: lost at exit. */
export class MemoryShelf implements Shelf {
  readonly #records = new Map<string, SealedRecord>();

  constructor(readonly where: string) {}

  read(client?: string): Promise<SealedRecord[]> {
    return Promise.resolve([...this.#records.values()].filter((record) => matches(record, client)));
  }

  put(record: SealedRecord): Promise<void> {
    this.#records.set(JSON.stringify([record.client, record.name]), record);
    return Promise.resolve();
  }

  remove(client?: string, name?: string): Promise<SealedRecord[]> {
    const removed = [...this.#records].filter(([, record]) => matches(record, client, name));
    for (const [key] of removed) this.#records.delete(key);
    return Promise.resolve(removed.map(([, record]) => record));
  }
}

/**
 * A JSON file written for the user only, whole and atomically. It is read at each use, so that
 * what `secrets forget` removed is gone for a workbench that is serving; the changes of one
 * process are made one at a time, so that two members providing at once both keep theirs.
 */
export class FileShelf implements Shelf {
  #queue: Promise<unknown> = Promise.resolve();

  constructor(readonly where: string, private readonly files: VaultFiles, private readonly malformed: () => void) {}

  async read(client?: string): Promise<SealedRecord[]> {
    return (await this.#load()).filter((record) => matches(record, client));
  }

  put(record: SealedRecord): Promise<void> {
    return this.#change((records) => ({ kept: [...records.filter((old) => !matches(old, record.client, record.name)), record] }))
      .then(() => undefined);
  }

  remove(client?: string, name?: string): Promise<SealedRecord[]> {
    return this.#change((records) => ({
      kept: records.filter((record) => !matches(record, client, name)),
      removed: records.filter((record) => matches(record, client, name)),
    }));
  }

  /** One change at a time: read, edit, write back (records of another shape are not written back). */
  #change(edit: (records: SealedRecord[]) => { kept: SealedRecord[]; removed?: SealedRecord[] }): Promise<SealedRecord[]> {
    const next = this.#queue.then(async () => {
      const { kept, removed } = edit(await this.#load());
      // A removal that found nothing leaves the file as it is (or absent).
      if (removed?.length === 0) return removed;
      const about = "Secrets members provided, each value sealed with WORKBENCH_SECRETS_KEY (AES-GCM); see 'mcp-workbench secrets'";
      await this.files.writePrivateFile(this.where, `${JSON.stringify({ about, entries: kept }, null, 2)}\n`);
      return removed ?? [];
    });
    this.#queue = next.catch(() => {});
    return next;
  }

  async #load(): Promise<SealedRecord[]> {
    let text: string;
    try {
      text = await this.files.readTextFile(this.where);
    } catch (error) {
      if (error instanceof Error && error.name === "NotFound") return [];
      throw new Error(`Cannot read the secrets file '${this.where}': ${error instanceof Error ? error.message : String(error)}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`Cannot read the secrets file '${this.where}': it is not JSON`);
    }
    if (!isObject(parsed) || !Array.isArray(parsed.entries)) {
      throw new Error(`Cannot read the secrets file '${this.where}': expected an object with "entries": [...]`);
    }
    const records = parsed.entries.map(recordOf);
    if (records.includes(undefined)) this.malformed();
    return records.filter((record) => record !== undefined);
  }
}

/**
 * A store shared by replicas: each member's records as fields of one key (one field per secret),
 * and the members who have some as fields of an index, so that everyone's can be listed.
 */
export class StoreShelf implements Shelf {
  readonly where: string;

  constructor(private readonly store: Store, private readonly malformed: () => void) {
    this.where = store.name;
  }

  async read(client?: string): Promise<SealedRecord[]> {
    const clients = client === undefined ? Object.keys(await this.store.fields(INDEX)).sort() : [client];
    const all = await Promise.all(clients.map(async (member) => {
      const fields = await this.store.fields(memberKey(member));
      return Object.entries(fields).map(([name, text]) => {
        const record = recordOf(parsed(text));
        // A record filed under another member or name is not theirs, whatever it says.
        return record?.client === member && record.name === name ? record : undefined;
      });
    }));
    const records = all.flat();
    if (records.includes(undefined)) this.malformed();
    return records.filter((record) => record !== undefined);
  }

  async put(record: SealedRecord): Promise<void> {
    await this.store.setField(memberKey(record.client), record.name, JSON.stringify(record), STORE_TTL_MS);
    await this.store.setField(INDEX, record.client, record.savedAt, STORE_TTL_MS);
  }

  async remove(client?: string, name?: string): Promise<SealedRecord[]> {
    const removed = (await this.read(client)).filter((record) => matches(record, client, name));
    const members = client === undefined ? Object.keys(await this.store.fields(INDEX)) : [client];
    for (const member of members) {
      // Whole, when all of a member's go: fields that are no record go too.
      if (name === undefined) await this.store.delete(memberKey(member));
      else await this.store.deleteField(memberKey(member), name);
      if (Object.keys(await this.store.fields(memberKey(member))).length === 0) await this.store.deleteField(INDEX, member);
    }
    return removed;
  }
}

const INDEX = storeKey("secrets", "members");
const memberKey = (client: string) => storeKey("secrets", "member", client);

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
