/**
 * Checks one JSON text held in byte pieces without building it: the full grammar (what JSON.parse
 * accepts, less a byte order mark), UTF-8, and the nesting depth. It finds where each member of
 * the top-level object starts and ends, so that a large member can be passed on as the bytes it
 * came in. A 32 MiB result then costs no decoded string, no parsed copy and no re-encoded frame.
 */
import { concatBytes } from "./line-splitter.ts";

/** A member of the top-level object: its key, and its value's bytes [start, end) across the pieces. */
export interface Member {
  /** Undefined for a key too long to be worth reading (no MCP member has one). */
  key?: string;
  start: number;
  end: number;
}

export type Scan =
  | { ok: true; members: Member[] }
  | { ok: false; tooDeep: boolean };

const OBJECT = 1;
const ARRAY = 2;

// States of the scanner.
const VALUE = 0, OBJECT_FIRST = 1, KEY = 2, COLON = 3, ARRAY_FIRST = 4, AFTER = 5, END = 6, STRING = 7,
  ESCAPE = 8, HEX = 9, UTF8 = 10, MINUS = 11, ZERO = 12, INTEGER = 13, FRACTION_FIRST = 14, FRACTION = 15,
  EXPONENT_FIRST = 16, EXPONENT_SIGN = 17, EXPONENT = 18, LITERAL = 19;

const LONGEST_KEY = 256;
const LITERALS: Record<number, number[]> = {
  0x74: [...new TextEncoder().encode("true")],
  0x66: [...new TextEncoder().encode("false")],
  0x6e: [...new TextEncoder().encode("null")],
};

const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
const isDigit = (b: number) => b >= 0x30 && b <= 0x39;
const isHex = (b: number) => isDigit(b) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);

/** Scans the JSON text made of `pieces`; a top-level value that is not an object has no members. */
export function scanJson(pieces: Uint8Array[], maxDepth: number): Scan {
  const stack: number[] = [];
  const members: Member[] = [];
  let state = VALUE;
  let offset = 0; // of the current piece's first byte
  let inKey = false;
  let keyStart = -1;
  let key: string | undefined;
  let memberStart = -1;
  let pending = 0; // hex digits, UTF-8 continuation bytes or literal bytes still expected
  let low = 0x80, high = 0xbf; // the range of the next UTF-8 continuation byte
  let literal: number[] = [];
  let literalAt = 0;
  const fail = (tooDeep = false): Scan => ({ ok: false, tooDeep });

  /** A value ended just before `end`: record it if it is a top-level member's. */
  const ended = (end: number) => {
    if (stack.length === 1 && stack[0] === OBJECT && memberStart >= 0) {
      members.push({ key, start: memberStart, end });
      memberStart = -1;
    }
    state = stack.length === 0 ? END : AFTER;
  };

  for (const piece of pieces) {
    const length = piece.length;
    const words = wordsOf(piece);
    for (let i = 0; i < length; i++) {
      let b = piece[i];
      switch (state) {
        case STRING: {
          i = plainUntil(piece, i, words);
          if (i === length) break;
          b = piece[i];
          if (b === 0x22) {
            if (inKey) {
              inKey = false;
              state = COLON;
              if (stack.length === 1) key = keyText(pieces, keyStart, offset + i);
            } else ended(offset + i + 1);
          } else if (b === 0x5c) state = ESCAPE;
          else if (b < 0x20) return fail();
          else if (b >= 0xc2 && b <= 0xdf) (pending = 1, low = 0x80, high = 0xbf, state = UTF8);
          else if (b === 0xe0) (pending = 2, low = 0xa0, high = 0xbf, state = UTF8);
          else if (b === 0xed) (pending = 2, low = 0x80, high = 0x9f, state = UTF8);
          else if (b >= 0xe1 && b <= 0xef) (pending = 2, low = 0x80, high = 0xbf, state = UTF8);
          else if (b === 0xf0) (pending = 3, low = 0x90, high = 0xbf, state = UTF8);
          else if (b >= 0xf1 && b <= 0xf3) (pending = 3, low = 0x80, high = 0xbf, state = UTF8);
          else if (b === 0xf4) (pending = 3, low = 0x80, high = 0x8f, state = UTF8);
          else return fail();
          break;
        }
        case UTF8:
          if (b < low || b > high) return fail();
          low = 0x80, high = 0xbf;
          if (--pending === 0) state = STRING;
          break;
        case ESCAPE:
          if (b === 0x75) (pending = 4, state = HEX);
          else if (b === 0x22 || b === 0x5c || b === 0x2f || b === 0x62 || b === 0x66 || b === 0x6e || b === 0x72 || b === 0x74) {
            state = STRING;
          } else return fail();
          break;
        case HEX:
          if (!isHex(b)) return fail();
          if (--pending === 0) state = STRING;
          break;
        case LITERAL:
          if (b !== literal[literalAt++]) return fail();
          if (literalAt === literal.length) ended(offset + i + 1);
          break;
        case MINUS:
          if (b === 0x30) state = ZERO;
          else if (isDigit(b)) state = INTEGER;
          else return fail();
          break;
        case FRACTION_FIRST:
          if (!isDigit(b)) return fail();
          state = FRACTION;
          break;
        case EXPONENT_FIRST:
          if (b === 0x2b || b === 0x2d) state = EXPONENT_SIGN;
          else if (isDigit(b)) state = EXPONENT;
          else return fail();
          break;
        case EXPONENT_SIGN:
          if (!isDigit(b)) return fail();
          state = EXPONENT;
          break;
        case ZERO:
        case INTEGER:
        case FRACTION:
        case EXPONENT:
          if (isDigit(b) && state !== ZERO) break;
          if (b === 0x2e && (state === ZERO || state === INTEGER)) {
            state = FRACTION_FIRST;
            break;
          }
          if ((b === 0x65 || b === 0x45) && state !== EXPONENT) {
            state = EXPONENT_FIRST;
            break;
          }
          // The number ended at the byte before; this byte belongs to what follows it.
          ended(offset + i);
          i--;
          break;
        default: {
          if (isSpace(b)) break;
          if (state === END) return fail();
          if (state === COLON) {
            if (b !== 0x3a) return fail();
            state = VALUE;
            break;
          }
          if (state === AFTER) {
            const top = stack[stack.length - 1];
            if (b === 0x2c) state = top === OBJECT ? KEY : VALUE;
            else if ((b === 0x7d && top === OBJECT) || (b === 0x5d && top === ARRAY)) {
              stack.pop();
              ended(offset + i + 1);
            } else return fail();
            break;
          }
          if (state === OBJECT_FIRST || state === KEY) {
            if (b === 0x7d && state === OBJECT_FIRST) {
              stack.pop();
              ended(offset + i + 1);
            } else if (b === 0x22) {
              inKey = true;
              keyStart = offset + i + 1;
              state = STRING;
            } else return fail();
            break;
          }
          if (state === ARRAY_FIRST && b === 0x5d) {
            stack.pop();
            ended(offset + i + 1);
            break;
          }
          // A value starts here.
          if (stack.length === 1 && stack[0] === OBJECT) memberStart = offset + i;
          if (b === 0x7b || b === 0x5b) {
            stack.push(b === 0x7b ? OBJECT : ARRAY);
            if (stack.length > maxDepth) return fail(true);
            state = b === 0x7b ? OBJECT_FIRST : ARRAY_FIRST;
          } else if (b === 0x22) state = STRING;
          else if (b === 0x2d) state = MINUS;
          else if (b === 0x30) state = ZERO;
          else if (isDigit(b)) state = INTEGER;
          else if (LITERALS[b]) {
            literal = LITERALS[b];
            literalAt = 1;
            state = LITERAL;
          } else return fail();
        }
      }
    }
    offset += length;
  }
  // A number can end with the text; nothing else can.
  if (state === ZERO || state === INTEGER || state === FRACTION || state === EXPONENT) ended(offset);
  return state === END ? { ok: true, members } : fail();
}

/** A piece read four bytes at a time, from its first 4-aligned byte. */
interface Words {
  first: number;
  words: Uint32Array;
}

const WORDS_FROM_BYTES = 64;

function wordsOf(piece: Uint8Array): Words | undefined {
  if (piece.length < WORDS_FROM_BYTES) return undefined;
  const first = (4 - (piece.byteOffset & 3)) & 3;
  return { first, words: new Uint32Array(piece.buffer, piece.byteOffset + first, (piece.length - first) >> 2) };
}

/**
 * The index of the first byte from `i` on that ends a run of plain string characters (a quote, a
 * backslash, a control or a non-ASCII byte), or the piece's length. Long strings are most of a
 * large message, so runs are skipped a word at a time.
 */
function plainUntil(piece: Uint8Array, i: number, at: Words | undefined): number {
  const length = piece.length;
  while (i < length) {
    if (at && i >= at.first && ((i - at.first) & 3) === 0) {
      const { first, words } = at;
      let word = (i - first) >> 2;
      while (word < words.length && isPlainWord(words[word])) word++;
      i = first + (word << 2);
      if (i >= length) return length;
    }
    const b = piece[i];
    if (b === 0x22 || b === 0x5c || b < 0x20 || b >= 0x80) return i;
    i++;
  }
  return length;
}

/**
 * No byte of `w` is below 0x20, above 0x7f, a quote or a backslash (the bit tricks "has a byte less
 * than n" and "has a zero byte": exact for whether any byte matches, which is all that is asked).
 */
function isPlainWord(w: number): boolean {
  const quote = w ^ 0x22222222;
  const backslash = w ^ 0x5c5c5c5c;
  const found = ((w - 0x20202020) & ~w) | w | ((quote - 0x01010101) & ~quote) | ((backslash - 0x01010101) & ~backslash);
  return (found & 0x80808080) === 0;
}

/** The key between two offsets, read only when it is short. */
function keyText(pieces: Uint8Array[], start: number, end: number): string | undefined {
  if (end - start > LONGEST_KEY) return undefined;
  return JSON.parse(`"${new TextDecoder().decode(concatBytes(sliceOf(pieces, start, end)))}"`) as string;
}

/** Views of the bytes [start, end) across the pieces: no byte is copied. */
export function sliceOf(pieces: Uint8Array[], start: number, end: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let offset = 0;
  for (const piece of pieces) {
    const from = Math.max(start - offset, 0);
    const to = Math.min(end - offset, piece.length);
    if (from < to) out.push(piece.subarray(from, to));
    offset += piece.length;
    if (offset >= end) break;
  }
  return out;
}

