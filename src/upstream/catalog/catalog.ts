/**
 * The prompts, resources and completions of every toolbox, served as one (issue 20, point 4).
 * Lists come from what each server last listed, else from the listing cache, through the offer
 * (pins: a withheld prompt, resource or template is neither listed nor found): listing starts no
 * server. prompts/get, resources/read, resources/subscribe and completion/complete start the
 * server they go to; one that names what no known list has starts the servers not known yet.
 * Prompt names carry their origin (prompt-names.ts); resource URIs are never rewritten and are
 * routed by the URI table (uri-table.ts), except skills' (skills.ts), which name their server.
 */
import {
  type CompleteRequest,
  CompleteRequestSchema,
  CompleteResultSchema,
  EmptyResultSchema,
  ErrorCode,
  type GetPromptRequest,
  GetPromptRequestSchema,
  GetPromptResultSchema,
  type JSONRPCRequest,
  McpError,
  type Prompt,
  type ReadResourceRequest,
  ReadResourceRequestSchema,
  ReadResourceResultSchema,
  type Resource,
  type ResourceTemplate,
  SubscribeRequestSchema,
  type Tool,
  UnsubscribeRequestSchema,
} from "../../protocol/sdk.ts";
import type { ConfiguredServer, ToolboxRegistry } from "../../toolboxes/registry.ts";
import type { SessionOffer } from "../../toolboxes/session-offer.ts";
import type { ServerSession } from "../../downstream/server-session.ts";
import { errorWithCode, messageOf, passedOn } from "../../protocol/errors.ts";
import type { ServerListing } from "../../downstream/listing.ts";
import { namePrompts, type PromptOrigin } from "./prompt-names.ts";
import type { UriOwner, UriTable } from "./uri-table.ts";
import { ANY_RESULT, SkillRoutes } from "./skills.ts";
import { checked, labelled } from "./catalog-shapes.ts";
import { injectMeta, type Span, type Telemetry } from "../../telemetry/index.ts";
import { downstreamPeer } from "../../downstream/traced-requests.ts";

/** One empty list for every cached listing's offer: the slot keeps an offer while its lists are the same objects. */
const NO_TOOLS: Tool[] = [];

/** MCP's error code for a resource that does not exist. */
export const RESOURCE_NOT_FOUND = -32002;

interface Source {
  configured: ConfiguredServer;
  listing: ServerListing;
}

interface NamedPrompt extends PromptOrigin {
  configured: ConfiguredServer;
  definition: Prompt;
}

type Schema = Parameters<ServerSession["request"]>[2];

export class WorkbenchCatalog {
  readonly #offer: SessionOffer;
  /** The live side of the session's toolboxes: servers' sessions to forward to, subscriptions. */
  readonly #registry: ToolboxRegistry;
  readonly #table: UriTable;
  readonly #skills: SkillRoutes;
  readonly #telemetry?: Telemetry;

  constructor(offer: SessionOffer, table: UriTable, telemetry?: Telemetry) {
    this.#offer = offer;
    this.#telemetry = telemetry?.tracing || telemetry?.metering ? telemetry : undefined;
    this.#registry = offer.registry;
    this.#table = table;
    this.#skills = new SkillRoutes({
      sources: () => this.#sources(),
      configured: () => this.#offer.configured,
      forward: (configured, method, params, span) => this.#forward(configured, method, params, ANY_RESULT, span),
      withheld: (configured) => this.#offer.withheldTexts(configured),
      approveWith: (configured) => this.#registry.slot(configured).approveWith,
    });
  }

  /** One request from the client, its params checked with the SDK's schema as setRequestHandler would. */
  async handle(request: JSONRPCRequest, span?: Span): Promise<unknown> {
    switch (request.method) {
      case "prompts/list":
        return this.listPrompts();
      case "prompts/get":
        return this.getPrompt(checked(GetPromptRequestSchema, request).params, span);
      case "resources/list":
        return this.listResources();
      case "resources/templates/list":
        return this.listResourceTemplates();
      case "resources/read":
        return this.readResource(checked(ReadResourceRequestSchema, request).params, span);
      case "resources/subscribe":
        return this.subscribe(checked(SubscribeRequestSchema, request).params.uri);
      case "resources/unsubscribe":
        return this.unsubscribe(checked(UnsubscribeRequestSchema, request).params.uri);
      case "completion/complete":
        return this.complete(checked(CompleteRequestSchema, request).params, span);
      case "skills/list":
        return this.#skills.list(request.params?.cursor);
      case "skills/get":
        return this.#skills.get(String(request.params?.uri), span);
      case "resources/directory/read":
        return this.#skills.readDirectory({ ...request.params, uri: String(request.params?.uri) }, span);
      default:
        return Promise.reject(errorWithCode(ErrorCode.MethodNotFound, "Method not found"));
    }
  }

  async listPrompts(): Promise<{ prompts: Prompt[] }> {
    const named = namedPrompts(await this.#sources());
    return { prompts: [...named].map(([name, { toolbox, server, definition }]) => ({ ...labelled(definition, toolbox, server), name })) };
  }

  async getPrompt(params: GetPromptRequest["params"], span?: Span): Promise<unknown> {
    const prompt = await this.#prompt(params.name);
    return await this.#forward(prompt.configured, "prompts/get", { ...params, name: prompt.prompt }, GetPromptResultSchema, span);
  }

  /** Each URI once, from the first server in configuration order that lists it. */
  async listResources(): Promise<{ resources: Resource[] }> {
    return { resources: await this.#firstOfEach((listing) => listing.resources, (resource) => resource.uri) };
  }

  async listResourceTemplates(): Promise<{ resourceTemplates: ResourceTemplate[] }> {
    return { resourceTemplates: await this.#firstOfEach((listing) => listing.resourceTemplates, (template) => template.uriTemplate) };
  }

  /** Every server's items, each key once (the first server in configuration order wins), labelled with its origin. */
  async #firstOfEach<T extends { name: string; title?: string; description?: string }>(
    itemsOf: (listing: ServerListing) => T[],
    keyOf: (item: T) => string,
  ): Promise<T[]> {
    const seen = new Set<string>();
    const items: T[] = [];
    for (const { configured: { toolbox, server }, listing } of await this.#sources()) {
      for (const item of itemsOf(listing)) {
        if (seen.has(keyOf(item))) continue;
        seen.add(keyOf(item));
        items.push(labelled(item, toolbox, server));
      }
    }
    return items;
  }

  /** A skill's rewritten URI goes to its server; a withheld URI is not read. */
  async readResource(params: ReadResourceRequest["params"], span?: Span): Promise<unknown> {
    if (this.#skills.originOf(params.uri)) return await this.#skills.read(params, span);
    return await this.#toOwner(params.uri, "resources/read", params, ReadResourceResultSchema, { guarded: true, span });
  }

  /** A file of an offered skill, for use_tool's read_skill (see SkillRoutes.readFile). */
  readSkillFile(uri: string, span?: Span): ReturnType<SkillRoutes["readFile"]> { return this.#skills.readFile(uri, span); }

  /** A server with subscriptions is not stopped for being idle: it would stop sending updates. */
  async subscribe(uri: string): Promise<unknown> {
    const result = await this.#toOwner(uri, "resources/subscribe", { uri }, EmptyResultSchema, { guarded: true });
    const shared = this.#sharedOf(uri);
    shared?.subscriptions.add(uri, this.#registry);
    this.#registry.subscriptions.add(uri);
    shared?.touch();
    return result;
  }

  /** The server is told only when no other session sharing it is still subscribed. */
  async unsubscribe(uri: string): Promise<unknown> {
    const shared = this.#sharedOf(uri);
    const others = [...shared?.subscriptions.get(uri) ?? []].some((by) => by !== this.#registry);
    const result = others ? {} : await this.#toOwner(uri, "resources/unsubscribe", { uri }, EmptyResultSchema);
    shared?.subscriptions.remove(uri, this.#registry);
    this.#registry.subscriptions.delete(uri);
    shared?.touch();
    return result;
  }

  #sharedOf(uri: string) {
    const owner = this.#table.ownerOf(uri);
    return owner && this.#registry.slot(this.#configured(owner)).shared;
  }

  /** A prompt's argument by our prompt name, or a template's variable by its template (or URI). */
  async complete(params: CompleteRequest["params"], span?: Span): Promise<unknown> {
    const { ref } = params;
    if (ref.type === "ref/prompt") {
      const prompt = await this.#prompt(ref.name);
      const named = { ...params, ref: { ...ref, name: prompt.prompt } };
      return await this.#forward(prompt.configured, "completion/complete", named, CompleteResultSchema, span);
    }
    const owner = await this.#found(() => this.#table.ownerOfTemplate(ref.uri) ?? this.#table.ownerOf(ref.uri));
    if (!owner) throw errorWithCode(ErrorCode.InvalidParams, `Resource template '${ref.uri}' not found in any toolbox`);
    return await this.#forward(this.#configured(owner), "completion/complete", params, CompleteResultSchema, span);
  }

  /**
   * A request about one URI goes to the server the URI table names; `guarded`: not a URI withheld
   * by the pins (reads and subscriptions, see SkillRoutes.guard), though a template matches it.
   */
  async #toOwner(
    uri: string,
    method: string,
    params: Record<string, unknown>,
    schema: Schema,
    { guarded = false, span }: { guarded?: boolean; span?: Span } = {},
  ): Promise<unknown> {
    const owner = await this.#found(() => this.#table.ownerOf(uri));
    const none = `Resource '${uri}' not found: no server lists it, has a template that matches it or returned it from a tool`;
    if (!owner) throw errorWithCode(RESOURCE_NOT_FOUND, none);
    if (guarded) await this.#skills.guard(this.#configured(owner), uri);
    return await this.#forward(this.#configured(owner), method, params, schema, span);
  }

  async #prompt(name: string): Promise<NamedPrompt> {
    const prompt = await this.#found(async () => namedPrompts(await this.#sources()).get(name));
    if (!prompt) throw errorWithCode(ErrorCode.InvalidParams, `Prompt '${name}' not found in any toolbox`);
    return prompt;
  }

  /** What `find` finds in the known lists, else in them once the servers not known yet have listed theirs. */
  async #found<T>(find: () => T | undefined | Promise<T | undefined>): Promise<T | undefined> {
    await this.#sources();
    return await find() ?? (await this.#listUnknown() ? await find() : undefined);
  }

  /**
   * A name or URI no known list has may belong to a server whose lists are not known yet (never
   * connected, not in the cache: a first session): those servers are started, which lists them,
   * before "not found" is said. A server that already failed to start is not tried again here
   * (opening its toolbox does that). False when there was no such server.
   */
  async #listUnknown(): Promise<boolean> {
    const known = new Set((await this.#sources()).map((source) => source.configured));
    const unknown = this.#registry.configured
      .filter((server) => !known.has(server))
      .map((server) => this.#registry.slot(server).shared)
      .filter((shared) => !shared.live && shared.error === undefined);
    if (unknown.length === 0) return false;
    await Promise.all([...new Set(unknown)].map((shared) => shared.connect()));
    await this.#sources();
    return true;
  }

  /**
   * Starts the server if it is not running, then passes the request on; with telemetry on, as a
   * CLIENT span under the client's request's `parent`, its context in the request's `_meta`.
   */
  async #forward(configured: ConfiguredServer, method: string, params: Record<string, unknown>, schema: Schema, parent?: Span) {
    const slot = this.#registry.slot(configured);
    const connected = await slot.shared.connected(undefined, parent);
    const where = `server '${configured.server}' in toolbox '${configured.toolbox}'`;
    if (!connected.ok) throw errorWithCode(ErrorCode.InternalError, `Cannot reach ${where}: ${connected.error}`);
    const peer = this.#telemetry && downstreamPeer(configured.config, configured.toolbox, configured.server);
    const span = peer && this.#telemetry!.clientSpan({ method, params }, parent, peer);
    try {
      const result: unknown = await slot.shared.request(connected.serverSession, method, span ? injectMeta(params, span) : params, schema);
      span?.end(result);
      return result;
    } catch (error) {
      span?.fail(error);
      if (error instanceof McpError) throw passedOn(error);
      throw errorWithCode(ErrorCode.InternalError, `Request '${method}' to ${where} failed: ${messageOf(error)}`);
    }
  }

  #configured(owner: UriOwner): ConfiguredServer {
    return this.#registry.configured[owner.rank];
  }

  /**
   * Every configured server whose lists are known, in configuration order, as the offer has them
   * (live, else the cache's). A server in neither is left out until it connects. The URI table
   * learns each server's resources and templates here.
   */
  async #sources(): Promise<Source[]> {
    const sources = await this.#offer.listings();
    for (const { configured, listing } of sources) {
      this.#table.setListed(configured, listing.resources.map((resource) => resource.uri));
      this.#table.setTemplates(configured, listing.resourceTemplates.map((template) => template.uriTemplate));
    }
    return sources;
  }

}

function namedPrompts(sources: Source[]): Map<string, NamedPrompt> {
  return namePrompts(sources.flatMap(({ configured, listing }) =>
    listing.prompts.map((definition) => ({
      toolbox: configured.toolbox,
      server: configured.server,
      prompt: definition.name,
      configured,
      definition,
    }))
  ));
}
