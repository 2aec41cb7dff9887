import { formatPath, type PathSegment } from "./path.ts";

/** Any problem with the configuration file: its path, its JSON, its shape or its variables. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** Builds the error for a value that does not fit the schema, located at `path`. */
export function invalidConfiguration(path: readonly PathSegment[], detail: string): ConfigError {
  const location = formatPath(path);
  return new ConfigError(
    location === "" ? `Invalid configuration: ${detail}` : `Invalid configuration at ${location}: ${detail}`,
  );
}
