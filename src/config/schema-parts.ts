/**
 * The parts the configuration's schemas are made of (valibot): JSON objects with only known keys,
 * checks that keep our messages and describe themselves in the JSON Schema, bounded integers, and
 * the shared words of what was expected (never what was received: values can be secrets).
 */
import * as v from "valibot";
import { objectIssueMessage } from "./object-issue.ts";
import { isJsonObject, isNonEmptyString, isStringRecord } from "./json-guards.ts";

// setTimeout fires at once for delays above 2^31 - 1 ms, so larger values would disable the timeout.
export const MAX_TIMEOUT_MS = 2_147_483_647;

export const EXPECTED_STRING = "expected a string";
export const EXPECTED_NON_EMPTY_STRING = "expected a non-empty string";
export const EXPECTED_TIMEOUT = `expected a positive integer of milliseconds (at most ${MAX_TIMEOUT_MS})`;
export const EXPECTED_BOOLEAN = "expected true or false";

/**
 * JSON Schema for the schemas valibot cannot describe itself (custom checks keep our messages and
 * report at the value, not inside it): read by schemaJson() through toJsonSchema's overrideSchema.
 */
export const JSON_SCHEMA_OF = new WeakMap<object, Record<string, unknown>>();

export function custom<T>(guard: (value: unknown) => value is T, message: string, jsonSchema: Record<string, unknown>) {
  const schema = v.custom<T>(guard, message);
  JSON_SCHEMA_OF.set(schema, jsonSchema);
  return schema;
}

/** A JSON object with only the given keys; an unknown key is reported at the object. */
export function strictJsonObject<const TEntries extends v.ObjectEntries>(entries: TEntries, notObjectMessage: string) {
  return v.pipe(
    custom<Record<string, unknown>>(isJsonObject, notObjectMessage, { type: "object" }),
    v.strictObject(entries, (issue) => objectIssueMessage(entries, issue)),
  );
}

export const nonEmptyString = () =>
  custom<string>(isNonEmptyString, EXPECTED_NON_EMPTY_STRING, { type: "string", minLength: 1 });

export const boundedInteger = (max: number, message: string, min = 1) =>
  v.optional(v.pipe(v.number(message), v.integer(message), v.minValue(min, message), v.maxValue(max, message)));

export const stringRecord = () =>
  custom<Record<string, string>>(isStringRecord, "expected an object of string values", {
    type: "object",
    additionalProperties: { type: "string" },
  });
