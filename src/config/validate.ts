import * as v from "valibot";
import { invalidConfiguration } from "./errors.ts";
import { configFileSchema, type WorkbenchConfig } from "./schema.ts";

/**
 * Checks parsed JSON against the configuration schema and applies defaults.
 * Throws a ConfigError describing the first problem found.
 */
export function validateConfig(data: unknown): WorkbenchConfig {
  const result = v.safeParse(configFileSchema, data, {
    abortEarly: true,
    // Every schema sets its own message; this fallback keeps out valibot's default, which quotes the value.
    message: () => "has an invalid value",
  });
  if (!result.success) {
    const [issue] = result.issues;
    const path = (issue.path ?? []).map((item) => item.key as string | number);
    throw invalidConfiguration(path, issue.message);
  }
  return { toolboxes: result.output.toolboxes };
}
