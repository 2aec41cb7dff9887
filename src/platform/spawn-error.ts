/** One wording for a child that cannot start, whatever the runtime says. */
export function spawnError(command: string, cause: unknown): Error {
  const text = cause instanceof Error ? cause.message : String(cause);
  const notFound = /ENOENT|NotFound|No such file|not found/i.test(text);
  const reason = notFound ? "command not found" : text;
  return new Error(`Cannot start '${command}': ${reason}`, { cause });
}
