/**
 * A body read whole, within bounds: at most `maxBytes`, and (when given) within `timeoutMs`. For the
 * small bodies read outside the MCP streams: a token endpoint's answer, a form a browser sends. A
 * body past either bound is no body: what was read of it is never taken for the whole.
 */
import { concatBytes } from "./line-splitter.ts";

/** The body's bytes; undefined past `maxBytes` or `timeoutMs` (or when reading it failed). */
export async function readBounded(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  timeoutMs?: number,
): Promise<Uint8Array | undefined> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  let late = false;
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => {
    late = true;
    void reader.cancel().catch(() => {});
  }, timeoutMs);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        return undefined;
      }
      chunks.push(value);
    }
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
  return late ? undefined : concatBytes(chunks);
}
