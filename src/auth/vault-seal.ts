/**
 * How a member's provided secret is sealed (member-vault.ts): AES-GCM with a 256-bit key from
 * WORKBENCH_SECRETS_KEY, through WebCrypto, a fresh 12-byte IV per value, and the member and the
 * secret's name as additional data, so that a sealed value copied under another member or another
 * name does not open: whoever can write the file or the store cannot hand alice's token to bob.
 */
import { SECRETS_KEY_VARIABLE } from "../config/secret-variables.ts";

/** How to make a key, for the messages that ask for one. */
export const MAKE_KEY = "openssl rand -base64 32";

const KEY_BYTES = 32;
const IV_BYTES = 12;

/**
 * The key of WORKBENCH_SECRETS_KEY; undefined when it is unset or empty. Anything but the base64
 * (or base64url) of exactly 32 bytes is an error that names the variable, never its value: a
 * short or mistyped key would otherwise seal everything under a key nobody meant.
 */
export async function readVaultKey(env: Record<string, string | undefined>): Promise<CryptoKey | undefined> {
  const text = env[SECRETS_KEY_VARIABLE]?.trim();
  if (!text) return undefined;
  const bytes = fromBase64(text.replace(/-/g, "+").replace(/_/g, "/"));
  if (bytes?.length !== KEY_BYTES) {
    const expected = `expected the base64 of exactly ${KEY_BYTES} random bytes (make one with '${MAKE_KEY}')`;
    throw new Error(`${SECRETS_KEY_VARIABLE} is not a key: ${expected}`);
  }
  return await crypto.subtle.importKey("raw", bytes, { name: "AES-GCM" }, false, ["encrypt", "decrypt"]);
}

/** A key for one process's memory only: what it seals is lost with it, as the key is. */
export async function processKey(): Promise<CryptoKey> {
  return await crypto.subtle.generateKey({ name: "AES-GCM", length: KEY_BYTES * 8 }, false, ["encrypt", "decrypt"]);
}

/** The additional data: which member's secret, and which one. */
function boundTo(client: string, name: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(JSON.stringify([client, name]));
}

/** `value` sealed for member `client`'s secret `name`: the base64 of the IV and the ciphertext. */
export async function seal(key: CryptoKey, client: string, name: string, value: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const params = { name: "AES-GCM", iv, additionalData: boundTo(client, name) };
  const sealed = new Uint8Array(await crypto.subtle.encrypt(params, key, new TextEncoder().encode(value)));
  const joined = new Uint8Array(IV_BYTES + sealed.length);
  joined.set(iv);
  joined.set(sealed, IV_BYTES);
  return toBase64(joined);
}

/** The value sealed for `client`'s `name`; undefined when it does not open (another key, member or name, or altered). */
export async function unseal(key: CryptoKey, client: string, name: string, sealed: string): Promise<string | undefined> {
  const bytes = fromBase64(sealed);
  if (bytes === undefined || bytes.length <= IV_BYTES) return undefined;
  const params = { name: "AES-GCM", iv: bytes.slice(0, IV_BYTES), additionalData: boundTo(client, name) };
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(await crypto.subtle.decrypt(params, key, bytes.slice(IV_BYTES)));
  } catch {
    return undefined;
  }
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The bytes of standard base64; undefined when it is not. */
function fromBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
}
