/** Sizes of text in UTF-8, measured without encoding it (a result of many megabytes at no copy). */

/** UTF-8 bytes of a string, without encoding it: a result of many megabytes is measured at no copy. */
export function utf8Bytes(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 2; // a pair: 4 bytes for 2 code units
      i++;
    } else bytes += 2;
  }
  return bytes;
}

export function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
