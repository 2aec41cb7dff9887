/**
 * Prompts, resources and completions on the workbench server: the SDK Server answers them through
 * WorkbenchCatalog, loaded on the first such request (a session that never asks pays nothing at
 * start-up). Servers' list changes and resource updates are told to the client from here.
 */
import {
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  type Server,
  type ServerCapabilities,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "../sdk.ts";
import type { ToolboxRegistry } from "../toolbox/registry.ts";
import type { CatalogCache } from "../toolbox/catalog-cache.ts";
import type { SharedServer } from "../toolbox/shared-server.ts";
import type { WorkbenchCatalog } from "../catalog/workbench-catalog.ts";
import type { UriTable } from "../catalog/uri-table.ts";

export const CATALOG_CAPABILITIES: ServerCapabilities = {
  prompts: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  completions: {},
};

export function serveCatalog(server: Server, registry: ToolboxRegistry, table: UriTable, cache?: CatalogCache): void {
  let loaded: Promise<WorkbenchCatalog> | undefined;
  const catalog = () =>
    loaded ??= import("../catalog/workbench-catalog.ts").then(({ WorkbenchCatalog }) => new WorkbenchCatalog(registry, table, cache));
  server.setRequestHandler(ListPromptsRequestSchema, async () => (await catalog()).listPrompts());
  server.setRequestHandler(GetPromptRequestSchema, async (request) => (await catalog()).getPrompt(request.params) as never);
  server.setRequestHandler(ListResourcesRequestSchema, async () => (await catalog()).listResources());
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => (await catalog()).listResourceTemplates());
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => (await catalog()).readResource(request.params) as never);
  server.setRequestHandler(SubscribeRequestSchema, async (request) => (await catalog()).subscribe(request.params.uri) as never);
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => (await catalog()).unsubscribe(request.params.uri) as never);
  server.setRequestHandler(CompleteRequestSchema, async (request) => (await catalog()).complete(request.params) as never);

  // What each server's lists were when last told, so that an unchanged list is not announced.
  const told = new WeakMap<SharedServer, { prompts: string; resources: string }>();
  registry.watch({
    catalogListed(shared) {
      const { prompts, resources, resourceTemplates } = shared.catalog ?? { prompts: [], resources: [], resourceTemplates: [] };
      const now = { prompts: JSON.stringify(prompts), resources: JSON.stringify([resources, resourceTemplates]) };
      const before = told.get(shared) ?? { prompts: "[]", resources: "[[],[]]" };
      told.set(shared, now);
      if (now.prompts !== before.prompts) void server.sendPromptListChanged().catch(() => {});
      if (now.resources !== before.resources) void server.sendResourceListChanged().catch(() => {});
    },
    resourceUpdated(_, uri) {
      void server.sendResourceUpdated({ uri }).catch(() => {});
    },
  });
}
