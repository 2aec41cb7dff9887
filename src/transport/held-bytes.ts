/**
 * What an answer stands for beyond its own bytes (issue 38): a result cut to a page keeps the rest
 * in the session's store, so while its page waits to be written to the client, it counts as the
 * whole result against the client's backlog bound (write-queue.ts), as an uncut answer would. A
 * client that does not read then stops us after as many results as without pages, not ten times more.
 */
const held = new WeakMap<object, number>();

/** Marks `value` (a result) as holding `bytes` more than it encodes to; returns it. */
export function holdingBytes<T extends object>(value: T, bytes: number): T {
  if (bytes > 0) held.set(value, bytes);
  return value;
}

/** The bytes a response's result holds beyond its own frame; 0 for anything else. */
export function bytesHeldBy(message: object): number {
  const result = (message as { result?: unknown }).result;
  return typeof result === "object" && result !== null ? held.get(result) ?? 0 : 0;
}
