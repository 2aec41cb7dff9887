import * as v from "valibot";
import { invalidConfiguration } from "./errors.ts";
import { configFileSchema, DEFAULT_SETTINGS, type ServerConfig, type ServerSettings, type WorkbenchConfig } from "./schema.ts";

/**
 * Checks parsed JSON against the configuration schema and applies defaults.
 * Throws a ConfigError describing the first problem found.
 */
export function validateConfig(data: unknown): WorkbenchConfig {
  const result = v.safeParse(configFileSchema, data, {
    abortEarly: true,
    // Every schema sets its own message; this fallback keeps out valibot's default, which quotes the value.
    message: () => "has an invalid value",
  });
  if (!result.success) {
    const [issue] = result.issues;
    const path = (issue.path ?? []).map((item) => item.key as string | number);
    throw invalidConfiguration(path, issue.message);
  }
  const { toolboxes, $schema: _, ...topLevel } = result.output;
  const resolved = Object.entries(toolboxes).map(([name, toolbox]) => {
    const servers = Object.entries(toolbox.mcpServers).map(([server, config]) =>
      [server, { ...config, ...settingsFor(config, topLevel) } as ServerConfig] as const
    );
    return [name, { ...toolbox, mcpServers: Object.fromEntries(servers) }] as const;
  });
  return { toolboxes: Object.fromEntries(resolved) };
}

type GivenSettings = { [K in keyof ServerSettings]?: ServerSettings[K] };

/** Each setting from the server, else from the top of the file, else the default. */
function settingsFor(server: GivenSettings, topLevel: GivenSettings): ServerSettings {
  const pick = <K extends keyof ServerSettings>(key: K): ServerSettings[K] =>
    server[key] ?? topLevel[key] ?? DEFAULT_SETTINGS[key];
  return {
    connectTimeoutMs: pick("connectTimeoutMs"),
    callTimeoutMs: pick("callTimeoutMs"),
    maxCallTimeMs: pick("maxCallTimeMs"),
    maxMessageBytes: pick("maxMessageBytes"),
    inheritEnv: pick("inheritEnv"),
  };
}
