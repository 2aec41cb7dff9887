/**
 * About how long a value is as JSON, measured without making the JSON (issue 38): what a message
 * counts in its server's room (byte-room.ts) before the SDK's HTTP transport stringifies it. A
 * string counts its UTF-16 units and quotes (escapes are not looked for), a number its digits, a
 * value still in the bytes it came in (raw-json.ts) those bytes. A walk with its own stack: no
 * depth is too deep for it.
 */
import { rawJsonOf } from "./raw-json.ts";

export function jsonLength(value: unknown): number {
  let length = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === "string") length += item.length + 2;
    else if (typeof item === "number") length += String(item).length;
    else if (typeof item === "boolean") length += item ? 4 : 5;
    else if (item === null || typeof item !== "object") length += 4;
    else {
      const raw = rawJsonOf(item);
      if (raw) {
        for (const piece of raw) length += piece.length;
      } else if (Array.isArray(item)) {
        length += 1 + Math.max(item.length, 1);
        for (const element of item) stack.push(element);
      } else {
        let members = 0;
        for (const [key, member] of Object.entries(item)) {
          if (member === undefined) continue;
          members++;
          length += key.length + 4;
          stack.push(member);
        }
        length += members === 0 ? 2 : 1;
      }
    }
  }
  return length;
}
