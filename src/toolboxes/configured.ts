/** Every server the configuration names, in its order, whether or not its toolbox is open. */
import type { ServerConfig, WorkbenchConfig } from "../config/index.ts";

/** A configured server, whether or not its toolbox is open. */
export interface ConfiguredServer {
  toolbox: string;
  server: string;
  config: ServerConfig;
  /** Position in the configuration (toolboxes, then servers, in file order). */
  rank: number;
}

/** The configured servers: toolboxes, then servers, in file order. */
export function configuredIn(config: WorkbenchConfig): ConfiguredServer[] {
  const configured: ConfiguredServer[] = [];
  for (const [toolbox, { mcpServers }] of Object.entries(config.toolboxes)) {
    for (const [server, serverConfig] of Object.entries(mcpServers)) {
      configured.push({ toolbox, server, config: serverConfig, rank: configured.length });
    }
  }
  return configured;
}
