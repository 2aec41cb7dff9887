/** JSON that equal values always give as equal text: keys sorted at every depth (pins, capability keys, hub keys). */

/** JSON with every object's keys sorted, at every depth: equal values give equal text. */
export function canonicalJson(value: unknown, indent?: number): string {
  return JSON.stringify(sortKeys(value), null, indent);
}

export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== "object" || value === null) return value;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).filter((key) => record[key] !== undefined).sort();
  return Object.fromEntries(keys.map((key) => [key, sortKeys(record[key])]));
}
