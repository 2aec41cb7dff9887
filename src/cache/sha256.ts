/**
 * SHA-256 (FIPS 180-4) in plain JavaScript, for the listing cache's file names. WebCrypto gives the
 * same digest, but its first call pages in over 1 MiB of the runtime's crypto code at start-up, for
 * hashing a few hundred bytes (see docs/benchmarks.md, figure 6).
 *
 * Past the first few KiB, the runtime's own synchronous hash takes over for long texts where there
 * is one: a start with a filled listing cache fingerprints every cached tool for the instructions'
 * tool counts (about 40 KiB for the bench's 87 tools) while the JIT is held back, and the rounds
 * below took 9 ms of it in the interpreter. Short texts stay here: a start with an empty cache
 * hashes 2 KiB, and each `serve --http` session names its servers' listing-cache files (two short
 * hashes a server), which through the runtime's hash grew 1,000 idle sessions by 6 to 8 MiB more
 * (measured, not explained; issue 42).
 */

const K = [
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];
const INITIAL = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/** Text hashed in plain script before the runtime's hash is used: an empty cache's start stays under it. */
const SCRIPT_HASHED_CHARS = 4 * 1024;
/** The shortest text the runtime hashes: a cache file's key stays in script. */
const RUNTIME_FROM_CHARS = 256;

let runtimeSha256: ((text: string) => string) | undefined;
let scriptHashedChars = 0;

/** The runtime's synchronous SHA-256 (platform.sha256Hex), for long texts once SCRIPT_HASHED_CHARS are hashed; none: always in script. */
export function useRuntimeSha256(hash: ((text: string) => string) | undefined): void {
  runtimeSha256 = hash;
  scriptHashedChars = 0;
}

/** The SHA-256 of the text's UTF-8 bytes, as 64 lowercase hex digits. */
export function sha256Hex(text: string): string {
  if (runtimeSha256 && text.length >= RUNTIME_FROM_CHARS && scriptHashedChars >= SCRIPT_HASHED_CHARS) return runtimeSha256(text);
  scriptHashedChars += text.length;
  return scriptSha256Hex(text);
}

/**
 * The SHA-256 in plain script. Rotations are written out and no helper is called in the rounds: a
 * small function called thousands of times at start-up would be compiled by the JIT, and the
 * compiler's code paged in (1 MiB) for hashing a few servers.
 */
export function scriptSha256Hex(text: string): string {
  const text8 = new TextEncoder().encode(text);
  const length = text8.length;
  // The message, a 1 bit, zeros, and its length in bits (64-bit big-endian): whole 64-byte blocks.
  // One typed array, not an array of numbers grown byte by byte: the instructions' tool counts
  // fingerprint every cached tool before the JIT is on (issue 42).
  const bytes = new Uint8Array(((length + 9 + 63) >>> 6) << 6);
  bytes.set(text8);
  bytes[length] = 0x80;
  const high = Math.floor(length / 0x20000000);
  const low = (length * 8) >>> 0;
  const end = bytes.length;
  bytes[end - 8] = high >>> 24;
  bytes[end - 7] = (high >>> 16) & 0xff;
  bytes[end - 6] = (high >>> 8) & 0xff;
  bytes[end - 5] = high & 0xff;
  bytes[end - 4] = low >>> 24;
  bytes[end - 3] = (low >>> 16) & 0xff;
  bytes[end - 2] = (low >>> 8) & 0xff;
  bytes[end - 1] = low & 0xff;
  const hash = INITIAL.slice();
  const w: number[] = [];
  for (let block = 0; block < bytes.length; block += 64) {
    for (let i = 0; i < 16; i++) {
      const at = block + i * 4;
      w[i] = (bytes[at] << 24) | (bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3];
    }
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15];
      const y = w[i - 2];
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
    }
    let a = hash[0], b = hash[1], c = hash[2], d = hash[3], e = hash[4], f = hash[5], g = hash[6], h = hash[7];
    for (let i = 0; i < 64; i++) {
      const sum1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const sum0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t1 = (h + sum1 + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
      const t2 = (sum0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    hash[0] = (hash[0] + a) | 0;
    hash[1] = (hash[1] + b) | 0;
    hash[2] = (hash[2] + c) | 0;
    hash[3] = (hash[3] + d) | 0;
    hash[4] = (hash[4] + e) | 0;
    hash[5] = (hash[5] + f) | 0;
    hash[6] = (hash[6] + g) | 0;
    hash[7] = (hash[7] + h) | 0;
  }
  return hash.map((value) => (value >>> 0).toString(16).padStart(8, "0")).join("");
}
