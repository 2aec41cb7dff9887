/**
 * What a child sees of our environment: the variables the MCP SDK passes by default, and those a
 * server needs to reach the network and speak the user's language (proxies, extra CA certificates,
 * locale, temp folder), so a secret in the client's environment never reaches a server that was
 * not given it, and a server behind a corporate proxy works as it did in the client.
 */
const INHERITED = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];
const INHERITED_WINDOWS = [
  "APPDATA",
  "HOMEDRIVE",
  "HOMEPATH",
  "LOCALAPPDATA",
  "PATH",
  "PROCESSOR_ARCHITECTURE",
  "SYSTEMDRIVE",
  "SYSTEMROOT",
  "TEMP",
  "USERNAME",
  "USERPROFILE",
  "PROGRAMFILES",
];
/** Network, certificates, locale and temp files, on every system (docs/configuration.md names them). */
export const INHERITED_EVERYWHERE = [
  "HTTPS_PROXY",
  "HTTP_PROXY",
  "NO_PROXY",
  "ALL_PROXY",
  "https_proxy",
  "http_proxy",
  "no_proxy",
  "all_proxy",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "REQUESTS_CA_BUNDLE",
  "CURL_CA_BUNDLE",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TMPDIR",
  "TMP",
  "TEMP",
];
/** Every `LC_*` locale variable (LC_ALL, LC_CTYPE, …). */
const LOCALE = /^LC_[A-Z]+$/;

export function childEnvironment(
  ours: Record<string, string>,
  configured: Record<string, string>,
  windows = false,
): Record<string, string> {
  const env: Record<string, string> = {};
  const keys = [
    ...(windows ? INHERITED_WINDOWS : INHERITED),
    ...INHERITED_EVERYWHERE,
    ...Object.keys(ours).filter((key) => LOCALE.test(key)),
  ];
  for (const key of keys) {
    const value = ours[key];
    // Exported shell functions start with "()" and are a known injection vector.
    if (value !== undefined && !value.startsWith("()")) env[key] = value;
  }
  return { ...env, ...configured };
}

/**
 * The variables a failed server's stderr names that the workbench has but did not pass, and how
 * to pass them: "" when there are none.
 */
export function withheldHint(mentioned: readonly string[], ours: Record<string, string>, given: Record<string, string>): string {
  const withheld = [...new Set(mentioned)].filter((name) => Object.hasOwn(ours, name) && !Object.hasOwn(given, name)).slice(0, 3);
  if (withheld.length === 0) return "";
  const names = withheld.map((name) => `'${name}'`).join(", ");
  const example = withheld.map((name) => `"${name}": "\${${name}}"`).join(", ");
  return `; it names ${names}, which the workbench has but does not pass to servers: add "env": {${example}} to the server, or ` +
    `"inheritEnv": true`;
}
