/** The words of anything thrown: an Error's message, else the value as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An error the SDK answers a peer with: exactly this code, message and data. */
export function errorWithCode(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, ...(data !== undefined && { data }) });
}

/**
 * Another peer's error (an McpError) passed on as that peer sent it: its code, its data and its own
 * words, without the "MCP error <code>: " the SDK puts in front (the receiving SDK adds its own).
 */
export function passedOn(error: { code: number; message: string; data?: unknown }): Error {
  return errorWithCode(error.code, error.message.replace(/^MCP error -?\d+: /, ""), error.data);
}
