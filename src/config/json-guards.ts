/** What a value of the configuration file is, as the schema's checks ask it. */

// valibot's record() silently drops these keys, which would make a toolbox or server vanish.
const RESERVED_NAMES = new Set(["__proto__", "prototype", "constructor"]);

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function isStringRecord(value: unknown): value is Record<string, string> {
  return isJsonObject(value) && Object.values(value).every((item) => typeof item === "string");
}

export function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

export function isNonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value !== "";
}

export function firstReservedKey(object: Record<string, unknown>): string | undefined {
  return Object.keys(object).find((key) => RESERVED_NAMES.has(key));
}
