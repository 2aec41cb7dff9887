/**
 * Client registrations and tokens of remote servers: one JSON file per server URL in the user's
 * config folder, written with mode 0600 and atomically. WORKBENCH_AUTH_DIR overrides the folder.
 */
import type { OAuthClientInformationMixed, OAuthTokens } from "../protocol/sdk-remote.ts";
import type { LoginSupport, Platform } from "../platform/types.ts";
import { displayUrl } from "../address/redact.ts";

export interface AuthRecord {
  /** The server's URL with every secret masked, for the person who opens the file. */
  server: string;
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  /** Where the authorization server redirected to when the client was registered. */
  redirectUrl?: string;
  /** The scope the last login asked for (the token response may not say which it got). */
  scope?: string;
}

export type StoreFiles = Pick<Platform, "readTextFile" | "writePrivateFile">;

/** `$XDG_CONFIG_HOME/mcp-workbench/auth`, `~/Library/Application Support/...`, `%APPDATA%\...`. */
export function authDir(env: Record<string, string | undefined>, os: LoginSupport["os"]): string {
  if (env.WORKBENCH_AUTH_DIR) return env.WORKBENCH_AUTH_DIR;
  if (os === "windows") return `${env.APPDATA ?? `${env.USERPROFILE}\\AppData\\Roaming`}\\mcp-workbench\\auth`;
  if (os === "darwin") return `${env.HOME}/Library/Application Support/mcp-workbench/auth`;
  return `${env.XDG_CONFIG_HOME || `${env.HOME}/.config`}/mcp-workbench/auth`;
}

/** Where logins are read and written: the operator's files (AuthStore), or a member's vault (member-logins.ts). */
export interface LoginRecords {
  pathFor(serverUrl: string): Promise<string>;
  load(serverUrl: string): Promise<AuthRecord>;
  save(serverUrl: string, record: AuthRecord): Promise<string>;
}

export class AuthStore implements LoginRecords {
  constructor(readonly dir: string, private readonly files: StoreFiles) {}

  /** The file of a server: its host for people, a digest of the whole URL for uniqueness. */
  async pathFor(serverUrl: string): Promise<string> {
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(serverUrl)));
    const hex = [...digest.slice(0, 12)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
    const host = new URL(serverUrl).host.replace(/[^A-Za-z0-9.-]/g, "_");
    const separator = this.dir.includes("\\") && !this.dir.includes("/") ? "\\" : "/";
    return `${this.dir}${separator}${host}-${hex}.json`;
  }

  /** The record, or an empty one when there is none (or it cannot be read as one). */
  async load(serverUrl: string): Promise<AuthRecord> {
    const empty = { server: displayUrl(serverUrl) };
    let text: string;
    try {
      text = await this.files.readTextFile(await this.pathFor(serverUrl));
    } catch {
      return empty;
    }
    try {
      const record = JSON.parse(text) as AuthRecord;
      return typeof record === "object" && record !== null ? { ...record, server: empty.server } : empty;
    } catch {
      return empty;
    }
  }

  async save(serverUrl: string, record: AuthRecord): Promise<string> {
    const path = await this.pathFor(serverUrl);
    await this.files.writePrivateFile(path, `${JSON.stringify(record, null, 2)}\n`);
    return path;
  }
}
