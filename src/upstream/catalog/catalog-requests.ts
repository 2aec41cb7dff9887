/**
 * Prompts, resources and completions on the workbench server: the SDK Server passes them to
 * WorkbenchCatalog, loaded on the first such request (a session that never asks pays nothing at
 * start-up). Servers' list changes and resource updates are told to the client from here, as the
 * session's offer shows them (pins: a change withheld is not told; skills changed are told as
 * resources changed).
 */
import { ErrorCode, type RequestId, type Server, type ServerCapabilities } from "../../protocol/sdk.ts";
import type { SessionOffer } from "../../toolboxes/session-offer.ts";
import type { SharedServer } from "../../toolboxes/shared-server.ts";
import { EMPTY_LISTING, type ServerListing } from "../../downstream/listing.ts";
import type { WorkbenchCatalog } from "./catalog.ts";
import type { UriTable } from "./uri-table.ts";
import type { SkillFileReader } from "../../tools/tool.ts";
import type { Span, Telemetry } from "../../telemetry/index.ts";

/** Telemetry on: the session's telemetry, and the SERVER span of each client request being served. */
export interface CatalogTracing {
  telemetry: Telemetry;
  spanOf: (id: RequestId) => Span | undefined;
}

/** The methods WorkbenchCatalog answers. */
export const CATALOG_METHODS: ReadonlySet<string> = new Set([
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

type OfferedLists = { prompts: string; resources: string; skills: string };

/** A shared server's prompts, resources and templates, and skills, as this session's slots of it offer them (and as nothing). */
async function offeredLists(offer: SessionOffer, shared: SharedServer): Promise<{ now: OfferedLists; empty: OfferedLists }> {
  const listings = await offer.listingsOf(shared);
  const keys = (listings: ServerListing[]) => ({
    prompts: JSON.stringify(listings.map((listing) => listing.prompts)),
    resources: JSON.stringify(listings.map((listing) => [listing.resources, listing.resourceTemplates])),
    skills: JSON.stringify(listings.map((listing) => listing.skills?.entries ?? [])),
  });
  return { now: keys(listings.map((listing) => listing ?? EMPTY_LISTING)), empty: keys(listings.map(() => EMPTY_LISTING)) };
}

/** Returns the reader of skill files use_tool's read_skill goes through (the catalog's, loaded on first use). */
export function serveCatalog(server: Server, offer: SessionOffer, table: UriTable, tracing?: CatalogTracing): SkillFileReader {
  const registry = offer.registry;
  let loaded: Promise<WorkbenchCatalog> | undefined;
  const catalog = () =>
    loaded ??= import("./catalog.ts").then(({ WorkbenchCatalog }) => new WorkbenchCatalog(offer, table, tracing?.telemetry));
  // Not setRequestHandler, which reads each request schema at start-up: nothing of this runs
  // before a client asks. WorkbenchCatalog checks the params with the same schemas.
  server.fallbackRequestHandler = async (request, extra) => {
    if (!CATALOG_METHODS.has(request.method)) throw Object.assign(new Error("Method not found"), { code: ErrorCode.MethodNotFound });
    return await (await catalog()).handle(request, tracing?.spanOf(extra.requestId)) as never;
  };

  // What each server's lists were, as this session is offered them, when last told: an unchanged
  // offer is not announced, so a change the pins withhold tells the client nothing.
  const told = new WeakMap<SharedServer, OfferedLists>();
  let telling = Promise.resolve();
  registry.watch({
    listingChanged(shared) {
      // One at a time: the lock is read before the offer is looked at.
      telling = telling.then(async () => {
        const { now, empty } = await offeredLists(offer, shared);
        const before = told.get(shared) ?? empty;
        told.set(shared, now);
        if (now.prompts !== before.prompts) void server.sendPromptListChanged().catch(() => {});
        // Skills are resources: the extension defines no notification of its own (its listing is a CacheableResult).
        if (now.resources !== before.resources || now.skills !== before.skills) void server.sendResourceListChanged().catch(() => {});
      }).catch(() => {});
    },
    resourceUpdated(_, uri) {
      // A server shared with other sessions tells of their subscriptions too.
      if (!registry.subscriptions.has(uri)) return;
      void server.sendResourceUpdated({ uri }).catch(() => {});
    },
  });
  return { readFile: async (uri, span) => await (await catalog()).readSkillFile(uri, span) };
}
