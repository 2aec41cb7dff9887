/** SHA-256 of release files, and the SHA256SUMS file that `sha256sum -c` can verify. */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";

export const CHECKSUMS_FILE = "SHA256SUMS";

export interface Checksum {
  fileName: string;
  sha256: string;
}

export function sha256Hex(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

export function sha256OfFile(path: string): string {
  return sha256Hex(readFileSync(path));
}

/** `<hex>  <name>` lines (two spaces: text mode, as sha256sum prints), sorted by name. */
export function formatChecksums(checksums: readonly Checksum[]): string {
  const sorted = [...checksums].sort((a, b) => (a.fileName < b.fileName ? -1 : a.fileName > b.fileName ? 1 : 0));
  return sorted.map(({ fileName, sha256 }) => `${sha256}  ${fileName}\n`).join("");
}

/** Writes `<dir>/SHA256SUMS` and returns its path. */
export function writeChecksums(dir: string, checksums: readonly Checksum[]): string {
  const path = `${dir}/${CHECKSUMS_FILE}`;
  writeFileSync(path, formatChecksums(checksums));
  return path;
}
