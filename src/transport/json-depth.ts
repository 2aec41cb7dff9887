/**
 * How deeply a parsed JSON value nests. Everything that touches a message after the parse (the
 * SDK's zod schemas, JSON.stringify, our own checks) recurses, and a few thousand levels overflow
 * the stack; JSON.parse itself is iterative in Bun and in Deno (millions of levels parse). So a
 * message is measured right after parsing, without recursion, before anything else sees it.
 */

/** Deeper than this, a message is refused: no MCP message needs a fraction of it. */
export const MAX_JSON_DEPTH = 1_000;

/** True when `value` has more than `max` levels of arrays and objects (a bare object is level 1). */
export function nestedDeeperThan(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  if (typeof value !== "object" || value === null) return false;
  const values: object[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const current = values.pop()!;
    const depth = depths.pop()!;
    if (depth > max) return true;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) {
      if (typeof child === "object" && child !== null) {
        values.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/** A line shorter than this cannot nest deeper than `max`: every level costs two brackets. */
export function mayNestDeeperThan(lineBytes: number, max: number = MAX_JSON_DEPTH): boolean {
  return lineBytes > 2 * max;
}
