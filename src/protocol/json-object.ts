/** A JSON object as parsed (not null, not an array): the first check of anything read as input. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
