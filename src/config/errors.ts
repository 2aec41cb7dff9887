/** The configuration's errors: one ConfigError for the whole file, every problem at its location. */
import { formatPath, type PathSegment } from "./path.ts";

/**
 * Any problem with the configuration file: its path, its JSON, its shape or its variables. A file
 * with several problems gives them all at once (`problems`), so one round of fixes is enough.
 */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  /** Each problem in one line, with its location; a single one is the message itself. */
  readonly problems: readonly string[];

  constructor(message: string, options?: ErrorOptions & { problems?: readonly string[] }) {
    super(message, options);
    this.problems = options?.problems ?? [message];
  }

  /** One error for every problem found: the message lists them all, one per line. */
  static of(problems: readonly string[], source?: string): ConfigError {
    if (problems.length === 1) return new ConfigError(problems[0]);
    const where = source === undefined ? "the configuration" : `configuration file '${source}'`;
    const lines = problems.map((problem) => `  - ${problem}`);
    return new ConfigError([`${problems.length} problems in ${where}:`, ...lines].join("\n"), { problems });
  }

  /** As `of`, and one problem alone names the file too: the message is often read far from it. */
  static inFile(problems: readonly string[], source: string): ConfigError {
    if (problems.length !== 1) return ConfigError.of(problems, source);
    return new ConfigError(`In configuration file '${source}': ${problems[0]}`, { problems });
  }
}

/** The text for a value that does not fit the schema, located at `path`. */
export function invalidAt(path: readonly PathSegment[], detail: string): string {
  const location = formatPath(path);
  return location === "" ? `Invalid configuration: ${detail}` : `Invalid configuration at ${location}: ${detail}`;
}
