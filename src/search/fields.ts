/**
 * What a tool is searched by: its fields (name, description, arguments, server, toolbox) as term
 * counts, and the text of an argument schema (names, descriptions, titles, enum values, two levels
 * deep). The index weighs the fields; this file only reads them.
 */
import { splitIdentifier, terms } from "./text.ts";
import { isObject } from "../protocol/json-object.ts";

/** One tool as search sees it. `toolboxDescription` is what the user wrote for the toolbox. */
export interface SearchEntry {
  toolbox: string;
  toolboxDescription?: string;
  server: string;
  name: string;
  description?: string;
  inputSchema?: unknown;
}

export type FieldName = "name" | "description" | "params" | "server" | "toolbox";

/** A field's terms and how often each occurs. */
export interface FieldTerms {
  counts: Map<string, number>;
  length: number;
}

/** A field's terms; with `pairs`, also each two neighbouring terms as one ("stock price"). */
export function fieldTerms(text: string, pairs = false): FieldTerms {
  const counts = new Map<string, number>();
  const list = terms(text);
  for (const term of list) counts.set(term, (counts.get(term) ?? 0) + 1);
  if (pairs) {
    for (let i = 1; i < list.length; i++) {
      const pair = `${list[i - 1]} ${list[i]}`;
      counts.set(pair, (counts.get(pair) ?? 0) + 1);
    }
  }
  return { counts, length: list.length };
}

/**
 * Longest text read from a description or a schema, in characters: a description's head says what
 * the tool does; its tail (examples, caveats, boilerplate) mostly adds noise, and costs time.
 */
const MAX_TEXT = 300;

export function entryFields(entry: SearchEntry): Record<FieldName, FieldTerms> {
  return {
    name: fieldTerms(splitIdentifier(entry.name), true),
    description: fieldTerms((entry.description ?? "").slice(0, MAX_TEXT)),
    params: fieldTerms(schemaText(entry.inputSchema).slice(0, MAX_TEXT)),
    server: fieldTerms(splitIdentifier(entry.server)),
    toolbox: fieldTerms(`${splitIdentifier(entry.toolbox)} ${entry.toolboxDescription ?? ""}`.slice(0, MAX_TEXT)),
  };
}

/** Argument names, descriptions, titles and string enum values of a JSON Schema, two levels deep. */
export function schemaText(schema: unknown, depth = 0, out: string[] = []): string {
  if (!isObject(schema) || depth > 2) return out.join(" ");
  const properties = schema.properties;
  if (!isObject(properties)) return out.join(" ");
  for (const [name, property] of Object.entries(properties)) {
    out.push(splitIdentifier(name));
    if (!isObject(property)) continue;
    if (typeof property.description === "string") out.push(property.description);
    if (typeof property.title === "string") out.push(property.title);
    if (Array.isArray(property.enum)) out.push(property.enum.filter((value) => typeof value === "string").join(" "));
    schemaText(property, depth + 1, out);
    if (isObject(property.items)) schemaText(property.items, depth + 1, out);
  }
  return out.join(" ");
}
