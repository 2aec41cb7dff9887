/**
 * How an MCP operation ended, in the conventions' words: `error.type` (a JSON-RPC error's code, or
 * `tool_error` for a result with `isError`) and `rpc.response.status_code`. Never a message: the
 * texts of errors the workbench answers hold what its log holds (a path, an argument, a server's
 * stderr lines), and a server's own may echo an argument.
 */

export interface Failure {
  /** `error.type`: low cardinality, never a message. */
  type: string;
  /** `rpc.response.status_code`: the JSON-RPC error code, when there is one. */
  statusCode?: string;
}

/** A tool result that reports a failure (`isError: true`): the call went through, the tool failed. */
export function isToolError(result: unknown): boolean {
  return typeof result === "object" && result !== null && (result as { isError?: unknown }).isError === true;
}

const ERROR_NAME = /^[A-Za-z_$][\w$.]{0,63}$/;

/**
 * What a thrown value says of the failure. A JSON-RPC error (an integer `code`, as the SDK's
 * McpError has) gives its code. Anything else gives its class name (`TimeoutError`, `AbortError`)
 * or `_OTHER`.
 */
export function failureOf(error: unknown): Failure {
  if (typeof error !== "object" || error === null) return { type: "_OTHER" };
  const { code, name } = error as { code?: unknown; name?: unknown };
  // A DOMException (TimeoutError, AbortError) has a numeric `code` of its own, no JSON-RPC one.
  if (typeof code === "number" && Number.isInteger(code) && !(error instanceof DOMException)) {
    return { type: String(code), statusCode: String(code) };
  }
  if (typeof name === "string" && name !== "Error" && ERROR_NAME.test(name)) return { type: name };
  return { type: "_OTHER" };
}
