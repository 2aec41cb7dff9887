/**
 * Prompts, resources and completions on the workbench server: the SDK Server passes them to
 * WorkbenchCatalog, loaded on the first such request (a session that never asks pays nothing at
 * start-up). Servers' list changes and resource updates are told to the client from here.
 */
import { ErrorCode, type Server, type ServerCapabilities } from "../../protocol/sdk.ts";
import type { ToolboxRegistry } from "../../toolboxes/registry.ts";
import type { ListingCache } from "../../cache/listing-cache.ts";
import type { SharedServer } from "../../toolboxes/shared-server.ts";
import type { WorkbenchCatalog } from "./catalog.ts";
import type { UriTable } from "./uri-table.ts";
import type { SkillFileReader } from "../../tools/tool.ts";

/** The methods WorkbenchCatalog answers. */
const METHODS = new Set([
  "prompts/list",
  "prompts/get",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "resources/subscribe",
  "resources/unsubscribe",
  "completion/complete",
  "skills/list",
  "skills/get",
  "resources/directory/read",
]);

export const CATALOG_CAPABILITIES: ServerCapabilities = {
  prompts: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  completions: {},
};

/** Returns the reader of skill files use_tool's read_skill goes through (the catalog's, loaded on first use). */
export function serveCatalog(server: Server, registry: ToolboxRegistry, table: UriTable, cache?: ListingCache): SkillFileReader {
  let loaded: Promise<WorkbenchCatalog> | undefined;
  const catalog = () =>
    loaded ??= import("./catalog.ts").then(({ WorkbenchCatalog }) => new WorkbenchCatalog(registry, table, cache));
  // Not setRequestHandler, which reads each request schema at start-up: nothing of this runs
  // before a client asks. WorkbenchCatalog checks the params with the same schemas.
  server.fallbackRequestHandler = async (request) => {
    if (!METHODS.has(request.method)) throw Object.assign(new Error("Method not found"), { code: ErrorCode.MethodNotFound });
    return await (await catalog()).handle(request) as never;
  };

  // What each server's lists were when last told, so that an unchanged list is not announced.
  const told = new WeakMap<SharedServer, { prompts: string; resources: string }>();
  registry.watch({
    listingChanged(shared) {
      const { prompts, resources, resourceTemplates } = shared.listing ?? { prompts: [], resources: [], resourceTemplates: [] };
      const now = { prompts: JSON.stringify(prompts), resources: JSON.stringify([resources, resourceTemplates]) };
      const before = told.get(shared) ?? { prompts: "[]", resources: "[[],[]]" };
      told.set(shared, now);
      if (now.prompts !== before.prompts) void server.sendPromptListChanged().catch(() => {});
      if (now.resources !== before.resources) void server.sendResourceListChanged().catch(() => {});
    },
    resourceUpdated(_, uri) {
      // A server shared with other sessions tells of their subscriptions too.
      if (!registry.subscriptions.has(uri)) return;
      void server.sendResourceUpdated({ uri }).catch(() => {});
    },
  });
  return { readFile: async (uri) => await (await catalog()).readSkillFile(uri) };
}
