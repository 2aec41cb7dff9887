/**
 * A session follows the configuration in force (it applies live, see config/live.ts): its
 * registry takes the new one (servers reconciled by definition), and the client is told what
 * changed for it: tools/list_changed only when the set of meta-tools changed (run_code or
 * search_tools came or went: the definitions it has stay byte for byte, see ToolDispatcher.setTools),
 * prompts and resources list_changed when the configured servers did (their prompts and resources
 * come and go with them).
 */
import type { Server } from "../protocol/sdk.ts";
import type { LiveConfig } from "../config/live.ts";
import type { WorkbenchConfig } from "../config/index.ts";
import { sharingKey } from "../config/definition.ts";
import type { ToolboxRegistry } from "../toolboxes/registry.ts";
import type { ToolDispatcher } from "../tools/dispatcher.ts";
import type { AnyTool } from "../tools/tool.ts";
import type { UriTable } from "./catalog/uri-table.ts";

export interface FollowingSession {
  registry: ToolboxRegistry;
  dispatcher: ToolDispatcher;
  /** The meta-tools for a configuration: their descriptions name its toolboxes; run_code comes and goes with code mode. */
  metaTools: (config: WorkbenchConfig) => AnyTool[];
  server: Server;
  uris: UriTable;
}

/** From now until the returned function is called. */
export function followConfig(live: LiveConfig, session: FollowingSession): () => void {
  const { registry, dispatcher, metaTools, server, uris } = session;
  return live.onChange((next, previous) => {
    registry.reconfigure(next);
    // A URI's owner is a position in the configuration: the table fills again from the new one.
    uris.clear();
    if (dispatcher.setTools(metaTools(next))) void server.sendToolListChanged().catch(() => {});
    if (catalogSources(next) !== catalogSources(previous)) {
      void server.sendPromptListChanged().catch(() => {});
      void server.sendResourceListChanged().catch(() => {});
    }
  });
}

/** The configured servers as the catalog names them (toolbox, server) and reaches them (definition). */
function catalogSources(config: WorkbenchConfig): string {
  return JSON.stringify(Object.entries(config.toolboxes).flatMap(([toolbox, { mcpServers }]) =>
    Object.entries(mcpServers).map(([server, definition]) => [toolbox, server, sharingKey(definition)])
  ));
}
