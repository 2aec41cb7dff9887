/** A schema as the model is shown it: `$schema` costs tokens and tells a model nothing. */
export function withoutSchemaKey<T extends object>(schema: T): T {
  if (!("$schema" in schema)) return schema;
  const { $schema: _, ...rest } = schema as T & { $schema?: unknown };
  return rest as T;
}
