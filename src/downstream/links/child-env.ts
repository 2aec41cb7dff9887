/**
 * What a child sees of our environment: only the variables the MCP SDK passes by default, so a
 * secret in the client's environment never reaches a server that was not given it.
 */
const INHERITED = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];
const INHERITED_WINDOWS = [
  "APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PROCESSOR_ARCHITECTURE",
  "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE", "PROGRAMFILES",
];

export function childEnvironment(
  ours: Record<string, string>,
  configured: Record<string, string>,
  windows = false,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of windows ? INHERITED_WINDOWS : INHERITED) {
    const value = ours[key];
    // Exported shell functions start with "()" and are a known injection vector.
    if (value !== undefined && !value.startsWith("()")) env[key] = value;
  }
  return { ...env, ...configured };
}
