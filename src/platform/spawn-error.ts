/**
 * One wording for a child that cannot start, whatever the runtime says. A bare command name is
 * looked up on the PATH the child was given, which is often not the user's: the message names it.
 * A command not found is named "NotFound", so the core can look for it elsewhere.
 */
export function spawnError(command: string, cause: unknown, path?: string, isDirectory?: (path: string) => boolean): Error {
  const text = cause instanceof Error ? cause.message : String(cause);
  const notFound = /ENOENT|NotFound|No such file|not found/i.test(text);
  const searched = /[\\/]/.test(command) ? "" : path ? ` on PATH '${path}'` : " (no PATH was set)";
  const reason = notFound ? `command not found${searched}` : inWords(command, text, isDirectory) ?? text;
  const error = new Error(`Cannot start '${command}': ${reason}`, { cause });
  if (notFound) error.name = "NotFound";
  return error;
}

/** What the system's code means for a command (ENOEXEC, EACCES), or undefined for another failure. */
function inWords(command: string, text: string, isDirectory?: (path: string) => boolean): string | undefined {
  if (/ENOEXEC|Exec format error|os error 8\b/i.test(text)) {
    return `it is not a program this system can run: neither a binary for this machine nor a script that starts with '#!' ` +
      `(for a script, make its interpreter the command: "command": "node", "args": ["${command}"])`;
  }
  if (!/EACCES|Permission denied|os error 13\b/i.test(text)) return undefined;
  if (/[\\/]/.test(command) && isDirectory?.(command)) return "it is a directory, not a program: name the program inside it";
  return `permission denied: it is not executable (chmod +x '${command}'), or a folder on its path or the server's cwd cannot be entered`;
}
