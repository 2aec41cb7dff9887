/**
 * One line per tool for open_toolbox's summary: its name, its arguments and the first sentence of
 * its description, e.g. `read_text_file(path: string, head?: number): Read a file as text.` A model
 * picks its tools from these lines and asks for the full entries of the ones it will call.
 */
import type { Tool as McpTool } from "../protocol/sdk.ts";
import { isObject } from "../protocol/json-object.ts";

/** Longest description part of a line, in characters; a longer one is cut and ends with "…". */
export const MAX_SUMMARY_DESCRIPTION = 160;

export function summaryLine(tool: McpTool): string {
  const about = firstSentence(tool.description ?? "");
  const signature = signatureOf(tool);
  return about === "" ? signature : `${signature}: ${about}`;
}

/** `read_text_file(path: string, head?: number)`. */
export function signatureOf(tool: McpTool): string {
  return `${tool.name}(${argumentList(tool.inputSchema)})`;
}

/** `path: string, head?: number`: required arguments without the question mark. */
function argumentList(schema: McpTool["inputSchema"]): string {
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const properties = isObject(schema.properties) ? schema.properties : {};
  return Object.entries(properties)
    .map(([name, property]) => `${name}${required.has(name) ? "" : "?"}: ${typeName(property)}`)
    .join(", ");
}

/** A short type: string, number[], "a"|"b", string|null, object; `any` when the schema does not say. */
export function typeName(schema: unknown): string {
  if (!isObject(schema)) return "any";
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join("|");
  if ("const" in schema) return JSON.stringify(schema.const);
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) return [...new Set(union.map(typeName))].join("|");
  if (Array.isArray(schema.type)) return schema.type.map((type) => typeName({ ...schema, type })).join("|");
  if (schema.type === "array") {
    const item = typeName(schema.items);
    return item.includes("|") ? `(${item})[]` : `${item}[]`;
  }
  return typeof schema.type === "string" ? schema.type : "any";
}

/** Up to the first ". " (or line break), at most MAX_SUMMARY_DESCRIPTION characters. */
export function firstSentence(description: string): string {
  const text = description.trim();
  const end = /[.!?](?=\s)|\n/.exec(text);
  const sentence = (end ? text.slice(0, end.index + (end[0] === "\n" ? 0 : 1)) : text).trim();
  if (sentence.length <= MAX_SUMMARY_DESCRIPTION) return sentence;
  return `${sentence.slice(0, MAX_SUMMARY_DESCRIPTION - 1).trimEnd()}…`;
}
