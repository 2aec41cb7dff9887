/**
 * A remote server's 401 or 403 to credentials the configuration sends (headers.Authorization, a
 * url's user and password), in words: such a server is never sent down the OAuth path, so the
 * token is the fault, and what the server said of it (redacted) follows.
 */
import { configuredCredentials } from "../../address/request-target.ts";
import type { RemoteServerConfig } from "../../config/index.ts";
import { messageOf } from "../../protocol/errors.ts";
import { SseError, StreamableHTTPError } from "../../protocol/sdk-remote.ts";

/** "the server refused the token in headers.Authorization (HTTP 401): <its reason>", or undefined. */
export function refusalOf(error: unknown, config: RemoteServerConfig, redact: (text: string) => string): string | undefined {
  const credentials = configuredCredentials(config);
  const code = (error as { code?: unknown } | null)?.code;
  // Only an HTTP answer of the server: not a network failure, not an SDK error of its own.
  if (credentials === undefined || (code !== 401 && code !== 403)) return undefined;
  if (!(error instanceof StreamableHTTPError) && !(error instanceof SseError)) return undefined;
  const said = reasonGiven(messageOf(error));
  return `the server refused ${credentials} (HTTP ${code})${said ? `: ${redact(said)}` : ""}`;
}

/**
 * What a refusal's body says, if anything: an OAuth `error_description`, a JSON-RPC error's message, else its text (one line, 200
 * characters).
 */
function reasonGiven(text: string): string {
  const body = text.replace(/^[\s\S]*?Error POSTing to endpoint: /, "").replace(/^SSE error: (Non-200 status code \(\d+\))?/, "").trim();
  let said = body;
  try {
    const value = JSON.parse(body) as { error_description?: unknown; error?: unknown; message?: unknown };
    const inner = value.error as { message?: unknown } | undefined;
    said = [value.error_description, inner?.message, value.error, value.message].find((part) => typeof part === "string") as string ?? body;
  } catch {
    // Not JSON: its text as it is.
  }
  const line = said.split("\n", 1)[0].trim();
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
