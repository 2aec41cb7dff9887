/**
 * One wording for a child that cannot start, whatever the runtime says. A bare command name is
 * looked up on the PATH the child was given, which is often not the user's: the message names it.
 * A command not found is named "NotFound", so the core can look for it elsewhere.
 */
export function spawnError(command: string, cause: unknown, path?: string): Error {
  const text = cause instanceof Error ? cause.message : String(cause);
  const notFound = /ENOENT|NotFound|No such file|not found/i.test(text);
  const searched = /[\\/]/.test(command) ? "" : path ? ` on PATH '${path}'` : " (no PATH was set)";
  const reason = notFound ? `command not found${searched}` : text;
  const error = new Error(`Cannot start '${command}': ${reason}`, { cause });
  if (notFound) error.name = "NotFound";
  return error;
}
