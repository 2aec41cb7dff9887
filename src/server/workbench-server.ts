/** The MCP server a client talks to: the SDK's low-level Server with our two meta-tools. */
import { Server } from "../sdk.ts";
import { CallToolRequestSchema, ListToolsRequestSchema, type Progress } from "../sdk.ts";
import type { WorkbenchConfig } from "../config/index.ts";
import type { ToolboxRegistry } from "../toolbox/registry.ts";
import { ToolDispatcher } from "../tools/dispatcher.ts";
import { openToolbox } from "../tools/open-toolbox.ts";
import { useTool } from "../tools/use-tool.ts";
import { NAME, VERSION } from "../version.ts";
import { buildInstructions } from "./instructions.ts";

export interface WorkbenchServerOptions {
  config: WorkbenchConfig;
  configPath: string;
  registry: ToolboxRegistry;
}

export function createWorkbenchServer({ config, configPath, registry }: WorkbenchServerOptions): Server {
  const server = new Server(
    { name: NAME, version: VERSION },
    { capabilities: { tools: {} }, instructions: buildInstructions(config, configPath) },
  );
  const dispatcher = new ToolDispatcher([openToolbox, useTool]);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: dispatcher.listing }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const token = request.params._meta?.progressToken;
    // Progress is sent in order and before the result, or the client drops what comes after it.
    let progressSent = Promise.resolve();
    const onProgress = token === undefined ? undefined : (progress: Progress) => {
      const notification = { method: "notifications/progress" as const, params: { ...progress, progressToken: token } };
      progressSent = progressSent.then(() => extra.sendNotification(notification)).catch(() => {});
    };
    const result = await dispatcher.call(request.params.name, request.params.arguments, {
      config,
      registry,
      signal: extra.signal,
      onProgress,
    });
    await progressSent;
    return result;
  });
  return server;
}
