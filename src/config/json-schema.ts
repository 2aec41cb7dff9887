/**
 * The JSON Schema of the configuration file, generated from the valibot schema that validates it,
 * so that the two never drift. Editors read it through the file's "$schema" key.
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import { configFileSchema, JSON_SCHEMA_OF, serverObjectSchema, serverShape } from "./schema.ts";

/** Where the schema is published: the file at the root of the repository. */
export const CONFIG_SCHEMA_URL =
  "https://raw.githubusercontent.com/mcp-workbench/mcp-workbench/main/workbench-config.schema.json";

const OPTIONS = {
  target: "draft-07",
  // A pipeline is described by its last schema: the object after our "is an object" check.
  typeMode: "output",
  // Our custom checks describe themselves (see JSON_SCHEMA_OF); anything else unconvertible must fail loudly.
  errorMode: "throw",
  overrideSchema: ({ valibotSchema }) =>
    valibotSchema === serverShape ? serverJsonSchema() : JSON_SCHEMA_OF.get(valibotSchema),
} satisfies Parameters<typeof toJsonSchema>[1];

export function configJsonSchema(): Record<string, unknown> {
  const schema = toJsonSchema(configFileSchema, OPTIONS);
  const { $schema, ...rest } = schema;
  return { $schema, $id: CONFIG_SCHEMA_URL, title: "MCP Workbench configuration", ...rest };
}

/** A server: its keys, and either a command (stdio) or a url (remote); the rest is checked by the workbench. */
function serverJsonSchema(): Record<string, unknown> {
  const { $schema: _, ...keys } = toJsonSchema(serverObjectSchema, OPTIONS);
  return { ...keys, anyOf: [{ required: ["command"] }, { required: ["url"] }] };
}
