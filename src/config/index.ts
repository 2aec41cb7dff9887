export { ConfigError } from "./errors.ts";
export { type Environment, expandConfig } from "./expand.ts";
export { parseJson } from "./json.ts";
export { CONFIG_PATH_VARIABLE, DEFAULT_CONFIG_FILE, type LoadedConfig, loadConfig, resolveConfigPath } from "./load.ts";
export {
  DEFAULT_SETTINGS,
  isRemote,
  type OAuthSettings,
  type RemoteServerConfig,
  type ServerConfig,
  type StdioServerConfig, type ServerSettings, type ToolboxConfig, type WorkbenchConfig } from "./schema.ts";
export { validateConfig } from "./validate.ts";
