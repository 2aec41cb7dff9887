/**
 * A minimal zip writer (deflate, no zip64) so a Windows archive needs no `zip` on the build machine,
 * and the matching reader of the central directory that checks what we wrote.
 */
import { Buffer } from "node:buffer";
import { deflateRawSync, inflateRawSync } from "node:zlib";

export interface ZipEntry {
  name: string;
  data: Uint8Array;
  /** Unix permission bits; unzip on Linux and macOS restores them. */
  mode: number;
  modified: Date;
}

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const METHOD_STORE = 0;
const METHOD_DEFLATE = 8;
const VERSION_NEEDED = 20;
/** "Made by Unix" so readers take the permission bits from the high half of the external attributes. */
const MADE_BY_UNIX = (3 << 8) | VERSION_NEEDED;
const UTF8_NAMES = 1 << 11;
const REGULAR_FILE = 0o100000;
const MAX_32_BIT = 0xffffffff;

const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, byte) => {
  let value = byte;
  for (let bit = 0; bit < 8; bit++) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
  return value >>> 0;
});

export function crc32(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (let i = 0; i < data.length; i++) crc = CRC_TABLE[(crc ^ data[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** MS-DOS date and time (local time, two-second resolution, years from 1980). */
function dosDateTime(date: Date): { time: number; date: number } {
  const year = Math.min(Math.max(date.getFullYear(), 1980), 2107);
  return {
    time: (date.getHours() << 11) | (date.getMinutes() << 5) | Math.floor(date.getSeconds() / 2),
    date: ((year - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate(),
  };
}

interface PackedEntry {
  name: Buffer;
  method: number;
  crc: number;
  compressed: Uint8Array;
  size: number;
  mode: number;
  when: { time: number; date: number };
}

function packEntry(entry: ZipEntry): PackedEntry {
  if (entry.data.length >= MAX_32_BIT) throw new Error(`Zip entry "${entry.name}" is too large without zip64`);
  const deflated = deflateRawSync(entry.data);
  const stored = deflated.length >= entry.data.length;
  return {
    name: Buffer.from(entry.name, "utf8"),
    method: stored ? METHOD_STORE : METHOD_DEFLATE,
    crc: crc32(entry.data),
    compressed: stored ? entry.data : deflated,
    size: entry.data.length,
    mode: entry.mode,
    when: dosDateTime(entry.modified),
  };
}

function localHeader(entry: PackedEntry): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(LOCAL_HEADER, 0);
  header.writeUInt16LE(VERSION_NEEDED, 4);
  header.writeUInt16LE(UTF8_NAMES, 6);
  header.writeUInt16LE(entry.method, 8);
  header.writeUInt16LE(entry.when.time, 10);
  header.writeUInt16LE(entry.when.date, 12);
  header.writeUInt32LE(entry.crc, 14);
  header.writeUInt32LE(entry.compressed.length, 18);
  header.writeUInt32LE(entry.size, 22);
  header.writeUInt16LE(entry.name.length, 26);
  header.writeUInt16LE(0, 28);
  return Buffer.concat([header, entry.name]);
}

function centralHeader(entry: PackedEntry, localOffset: number): Buffer {
  const header = Buffer.alloc(46);
  header.writeUInt32LE(CENTRAL_HEADER, 0);
  header.writeUInt16LE(MADE_BY_UNIX, 4);
  header.writeUInt16LE(VERSION_NEEDED, 6);
  header.writeUInt16LE(UTF8_NAMES, 8);
  header.writeUInt16LE(entry.method, 10);
  header.writeUInt16LE(entry.when.time, 12);
  header.writeUInt16LE(entry.when.date, 14);
  header.writeUInt32LE(entry.crc, 16);
  header.writeUInt32LE(entry.compressed.length, 20);
  header.writeUInt32LE(entry.size, 24);
  header.writeUInt16LE(entry.name.length, 28);
  // Extra field, comment, disk number and internal attributes stay zero.
  header.writeUInt32LE(((REGULAR_FILE | entry.mode) << 16) >>> 0, 38);
  header.writeUInt32LE(localOffset, 42);
  return Buffer.concat([header, entry.name]);
}

function endOfCentralDirectory(count: number, size: number, offset: number): Buffer {
  const record = Buffer.alloc(22);
  record.writeUInt32LE(END_OF_CENTRAL_DIRECTORY, 0);
  record.writeUInt16LE(count, 8);
  record.writeUInt16LE(count, 10);
  record.writeUInt32LE(size, 12);
  record.writeUInt32LE(offset, 16);
  return record;
}

/** The bytes of a zip holding `entries`, in order. */
export function createZip(entries: readonly ZipEntry[]): Buffer {
  const parts: Uint8Array[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries.map(packEntry)) {
    const header = localHeader(entry);
    central.push(centralHeader(entry, offset));
    parts.push(header, entry.compressed);
    offset += header.length + entry.compressed.length;
  }
  if (offset >= MAX_32_BIT) throw new Error("Zip archive is too large without zip64");
  const directory = Buffer.concat(central);
  return Buffer.concat([...parts, directory, endOfCentralDirectory(entries.length, directory.length, offset)]);
}

export interface ZipListing {
  name: string;
  mode: number;
  data: Buffer;
}

/** Reads a zip through its central directory, inflating each entry and checking its CRC. */
export function readZip(zip: Buffer): ZipListing[] {
  const end = findEndOfCentralDirectory(zip);
  const count = zip.readUInt16LE(end + 10);
  let cursor = zip.readUInt32LE(end + 16);
  const listing: ZipListing[] = [];
  for (let index = 0; index < count; index++) {
    if (zip.readUInt32LE(cursor) !== CENTRAL_HEADER) throw new Error(`Zip central entry ${index} has a bad signature`);
    const nameLength = zip.readUInt16LE(cursor + 28);
    const name = zip.toString("utf8", cursor + 46, cursor + 46 + nameLength);
    const mode = (zip.readUInt32LE(cursor + 38) >>> 16) & 0o7777;
    const data = readEntryData(zip, zip.readUInt32LE(cursor + 42), name);
    if (crc32(data) !== zip.readUInt32LE(cursor + 16)) throw new Error(`Zip entry "${name}" fails its CRC check`);
    listing.push({ name, mode, data });
    cursor += 46 + nameLength + zip.readUInt16LE(cursor + 30) + zip.readUInt16LE(cursor + 32);
  }
  return listing;
}

function readEntryData(zip: Buffer, offset: number, name: string): Buffer {
  if (zip.readUInt32LE(offset) !== LOCAL_HEADER) throw new Error(`Zip entry "${name}" has a bad local header`);
  const method = zip.readUInt16LE(offset + 8);
  const start = offset + 30 + zip.readUInt16LE(offset + 26) + zip.readUInt16LE(offset + 28);
  const compressed = zip.subarray(start, start + zip.readUInt32LE(offset + 18));
  if (method === METHOD_STORE) return Buffer.from(compressed);
  if (method === METHOD_DEFLATE) return inflateRawSync(compressed);
  throw new Error(`Zip entry "${name}" uses unsupported method "${method}"`);
}

/** The record sits in the last 22 bytes plus at most a 64 KiB comment, so the search is bounded. */
function findEndOfCentralDirectory(zip: Buffer): number {
  const lowest = Math.max(0, zip.length - 22 - 0xffff);
  for (let offset = zip.length - 22; offset >= lowest; offset--) {
    if (zip.readUInt32LE(offset) === END_OF_CENTRAL_DIRECTORY) return offset;
  }
  throw new Error("Not a zip file: no end of central directory record");
}
