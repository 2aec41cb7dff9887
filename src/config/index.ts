/** The configuration: loading, validating and expanding workbench-config.json, and the types the rest reads. */
export { ConfigError } from "./errors.ts";
export { type Environment, expandConfig, type FallbackObserver } from "./expand.ts";
export { parseJson } from "./json.ts";
export {
  CONFIG_PATH_VARIABLE,
  type ConfigLocation,
  DEFAULT_CONFIG_FILE,
  type LoadedConfig,
  loadConfig,
  locateConfig,
  resolveConfigPath,
} from "./load.ts";
export {
  type AuditSettings,
  type ConfirmPolicy,
  type CodeModeLimits,
  DEFAULT_CODE_MODE,
  DEFAULT_OPEN_DETAIL,
  DEFAULT_SETTINGS,
  isRemote,
  type OAuthSettings,
  type TokenExchangeSettings,
  type PrivateKeyJwtSettings,
  type OpenDetail,
  type RemoteServerConfig,
  type ServeClientConfig,
  type ServeConfig,
  type ServeOAuthConfig,
  type ServerConfig,
  type ServerSettings,
  type StdioServerConfig,
  type ToolboxConfig,
  type WorkbenchConfig,
} from "./types.ts";
export { validateConfig } from "./validate.ts";
export { WORKBENCH_SERVER } from "./schema.ts";
