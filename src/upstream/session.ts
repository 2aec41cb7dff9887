/**
 * A session: one connected client, opened from its transport. It holds the MCP server the client
 * talks to (the SDK's low-level Server for initialize, tools/list and the rest of the protocol,
 * with the tools/call lane in front of it for our two meta-tools), the client as the servers see
 * it (capabilities, log level, roots), its open toolboxes and subscriptions, and its calls. The
 * servers behind it come from the process's pool, shared with other sessions that declared the same.
 */
import { ListToolsRequestSchema, Server, type ServerCapabilities } from "../protocol/sdk.ts";
import type { WorkbenchConfig } from "../config/index.ts";
import { ToolboxRegistry } from "../toolboxes/registry.ts";
import type { ServerPool } from "../toolboxes/pool.ts";
import type { MessageTransport } from "../transport/message-transport.ts";
import { ToolDispatcher } from "../tools/dispatcher.ts";
import { openToolboxFor } from "../tools/open-toolbox.ts";
import { useTool } from "../tools/use-tool.ts";
import { codeModeOn, runCodeFor } from "../tools/run-code.ts";
import { searchTools } from "../tools/search-tools.ts";
import { SessionSearch } from "../tools/session-search.ts";
import { searchLearningFor } from "../tools/search-learning.ts";
import { NAME, VERSION } from "../protocol/version.ts";
import { buildInstructions } from "./instructions.ts";
import type { ClientListings, FiguresFor } from "./toolbox-figures.ts";
import { serveToolCalls } from "./tool-call-intake.ts";
import { lazySchemaValidator } from "../protocol/schema-validator.ts";
import { ClientUpstream } from "./client-upstream.ts";
import type { ListingCache } from "../cache/listing-cache.ts";
import { UriTable } from "./catalog/uri-table.ts";
import { CATALOG_CAPABILITIES, serveCatalog } from "./catalog/catalog-requests.ts";
import { cachedSkillsDeclaration } from "./catalog/skills.ts";
import { SKILLS_EXTENSION } from "../protocol/skills.ts";
import { UpstreamGate } from "./era/gate.ts";
import { type ClientIdentity, LOCAL_USER } from "./client-identity.ts";
import { grantedView } from "./access/grants.ts";
import type { AuditLog } from "../trust/audit-log.ts";
import { LiveConfig } from "../config/live.ts";
import { followConfig } from "./live-session.ts";
import { toolSession } from "./tool-session.ts";
import { SessionOffer } from "../toolboxes/session-offer.ts";
import { type SessionState, type SessionStates, sessionStates } from "./session-state.ts";
import { MemoryStore } from "../store/memory-store.ts";
import type { Telemetry } from "../telemetry/index.ts";
import type { ConnectFlow } from "../auth/connect-flow.ts";
import { type NetworkTransport, TracedTransport } from "./traced-transport.ts";

export interface WorkbenchServerOptions {
  /** The configuration, or the one in force when it applies live (read at each use). */
  config: WorkbenchConfig | LiveConfig;
  configPath: string;
  registry: ToolboxRegistry;
  /** Tool counts and token estimates from the listing cache, for the instructions of a client that declared these capabilities. */
  figures?: FiguresFor;
  /** The Skills extension as declared to the client: when a server of its offer declared it (see skills.ts). */
  skills?: { directoryRead: boolean };
  /** Code mode: each toolbox's tools as TypeScript declarations, known from the listing cache, for run_code's description. */
  declarations?: Record<string, string>;
  /** Where prompts, resources and templates are listed from before their servers start. */
  cache?: ListingCache;
  /** Set before connecting, so that a client that leaves at once is still seen leaving. */
  onClose: () => void;
  onError: (error: Error) => void;
  /** The client sent `notifications/initialized`. */
  onInitialized?: () => void;
  /** Takes the client's logging level and roots changes for the servers behind us. */
  upstream?: ClientUpstream;
  /** The session's id and client name, what it keeps (results, approvals) and the audit log: for each call (see tools/tool.ts). */
  sessionId?: string;
  clientName?: string;
  state?: SessionState;
  audit?: AuditLog;
  /** Requests of a 2026-07-28 client stand alone (HTTP): use_tool opens a toolbox not open yet. */
  stateless?: boolean;
  /** Spans and durations of the client's requests and the calls they make (off: NOOP_TELEMETRY, or none). */
  telemetry?: Telemetry;
  /** How the client reaches us, for its spans: `pipe` (stdio, the default) or `tcp` (HTTP). */
  network?: NetworkTransport;
  /** A 2025-11-25 HTTP session's `Mcp-Session-Id`, for its spans (mcp.session.id). */
  httpSessionId?: string;
  /** Serving over HTTP: a member may provide a secret a server lacks, on a page (auth/connect-flow.ts). */
  connect?: ConnectFlow;
}

export type SessionOptions =
  & Omit<WorkbenchServerOptions, "registry" | "upstream" | "sessionId" | "clientName" | "state" | "figures" | "declarations">
  & {
    /** The instructions' figures and run_code's declarations for each client, from the listing cache. */
    listings?: ClientListings;
    /** The process's shared servers. */
    pool: ServerPool;
    /** Where sessions keep their state (see session-state.ts); one of its own when not said. */
    states?: SessionStates;
    /** The key of this session's state: a 2026-07-28 hub's key; a new one when not said. */
    stateKey?: string;
    /** Who the session works for; LOCAL_USER when not said (stdio). */
    client?: ClientIdentity;
  };

export interface UpstreamSession {
  /** The client as the servers behind see it. */
  readonly upstream: ClientUpstream;
  /** This session's toolboxes. */
  readonly registry: ToolboxRegistry;
  readonly server: Server;
  /** Ends the session here: its toolboxes close, and servers no other session uses stop. */
  close(): Promise<void>;
  /** The client ended the session for good: what it kept goes from the store, on every replica. */
  forget(): Promise<void>;
}

/** Opens a session on a client's transport; it ends when the client closes it, or on close(). */
export async function openSession(transport: MessageTransport, options: SessionOptions): Promise<UpstreamSession> {
  const { pool, listings, stateKey: given, ...rest } = options;
  const states = options.states ?? sessionStates(new MemoryStore(), LiveConfig.of(options.config));
  const stateKey = given ?? crypto.randomUUID();
  const state = states.of(stateKey);
  // A client granted some toolboxes sees a configuration of those alone, everywhere, as it changes.
  const client = options.client ?? LOCAL_USER;
  const granted = LiveConfig.of(options.config).view((config) => grantedView(config, client));
  const live = granted.view;
  const upstream = new ClientUpstream();
  const registry = new ToolboxRegistry(live.current, pool, { upstream, client, kept: state.toolboxes });
  // What this client may be told before its servers start: read from its own cache files.
  const [figures, declarations, skills] = await Promise.all([
    listings?.figures(client.name),
    listings?.declarations(client.name),
    cachedSkillsDeclaration(live.current, options.cache, client.name),
  ]);
  let closing: Promise<void> | undefined;
  const close = () =>
    closing ??= (async () => {
      granted.stop();
      // A hub's state (a key given) is the client's on every replica: this one only lets go of it.
      if (given === undefined) await states.end(stateKey);
      else states.release(stateKey);
      await registry.closeAll();
      await server.close().catch(() => {});
    })();
  const server = await serveWorkbench(transport, {
    ...rest,
    figures,
    declarations,
    skills,
    config: live,
    registry,
    upstream,
    // Over stdio the client has no name of its own: the audit log then names the session only.
    sessionId: crypto.randomUUID(),
    clientName: client.name === LOCAL_USER.name ? undefined : client.name,
    state,
    onClose: () => {
      void close();
      options.onClose();
    },
  });
  return { upstream, registry, server, close, forget: () => states.end(stateKey) };
}

/** Creates the server and connects it to the client's transport. */
export async function serveWorkbench(transport: MessageTransport, options: WorkbenchServerOptions): Promise<Server> {
  const { registry } = options;
  const live = LiveConfig.of(options.config);
  const serverInfo = { name: NAME, version: VERSION };
  // listChanged: open_toolbox's description names the toolboxes, which change with the configuration.
  const base = { tools: { listChanged: true }, logging: {}, ...CATALOG_CAPABILITIES };
  const withSkills = (skills: { directoryRead: boolean } | undefined) =>
    skills ? { ...base, extensions: { [SKILLS_EXTENSION]: skills } } : base;
  // What initialize says (a 2025-11-25 client hears it once): the Skills extension as the listing cache knew it.
  const capabilities = withSkills(options.skills);
  // The tool counts depend on the client (some servers list tools by its capabilities): the gate
  // asks for them as it answers initialize or server/discover, when the client's capabilities are
  // known as the servers will be given them (upstream.capabilities). The Server has none of its own.
  const server = new Server(serverInfo, { capabilities, jsonSchemaValidator: lazySchemaValidator });
  // What the session may see, asked by every surface: its toolboxes through the configuration it is granted.
  const offer = new SessionOffer(registry, () => live.current, options.cache);
  // Off, the client's messages go to the gate as they came: no span is made nor looked up.
  const telemetry = options.telemetry;
  const traced = telemetry && (telemetry.tracing || telemetry.metering)
    ? new TracedTransport(transport, telemetry, options.network ?? "pipe", options.httpSessionId)
    : undefined;
  const gate = workbenchGate(traced ?? transport, server, options, live, (skills) => withSkills(liveSkills(registry, skills)));
  // run_code only when code mode is on somewhere: without it the list is exactly the two meta-tools.
  const metaTools = (config: WorkbenchConfig) => [
    openToolboxFor(config),
    useTool,
    ...(config.toolSearch ? [searchTools] : []),
    ...(codeModeOn(config) ? [runCodeFor(config, options.declarations)] : []),
  ];
  // Made at once (it holds nothing until the first search builds its index), kept across configuration changes.
  const search = new SessionSearch(searchLearningFor(options.cache, options.configPath));
  const dispatcher = new ToolDispatcher(metaTools(live.current));
  if (traced) traced.knownTool = (name) => dispatcher.has(name);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: dispatcher.listing }));
  options.upstream?.attach(server, gate);
  const uris = new UriTable();
  const skills = serveCatalog(server, offer, uris, traced && { telemetry: telemetry!, spanOf: (id) => traced.spanOf(id) });
  const session = toolSession(options, { offer, live, uris, skills, search, modern: () => gate.modern });
  // tools/call never reaches the SDK Server: the lane answers every one (see tool-call-intake.ts).
  serveToolCalls(gate, dispatcher, {
    session,
    clientSpeaksModern: () => gate.modern,
    onCall: options.state?.touch,
    spanOf: traced && ((id) => traced.spanOf(id)),
  });
  const unfollow = followConfig(live, { registry, dispatcher, metaTools, server, uris });
  server.onclose = () => {
    unfollow();
    search.close();
    options.onClose();
  };
  server.oninitialized = options.onInitialized;
  server.onerror = (error) => options.onError(new Error(withoutQuotedMessage(error.message)));
  await server.connect(gate);
  return server;
}

/** Both eras on one transport: the gate speaks 2026-07-28 when the client's first message does. */
function workbenchGate(
  transport: MessageTransport,
  server: Server,
  options: WorkbenchServerOptions,
  live: LiveConfig,
  capabilitiesNow: (cached: { directoryRead: boolean } | undefined) => ServerCapabilities,
): UpstreamGate {
  const forClient = () =>
    buildInstructions(
      live.current,
      options.configPath,
      options.figures?.(options.upstream ? options.upstream.capabilities : server.getClientCapabilities()),
    );
  return new UpstreamGate(transport, {
    // server/discover is asked again by a 2026-07-28 client (its ttlMs is 0): once a server of the
    // session's offer has declared the extension (a first session, the cache empty), it is declared.
    get capabilities() {
      return capabilitiesNow(options.skills);
    },
    instructions: forClient,
    serverInfo: { name: NAME, version: VERSION },
    onModern: options.onInitialized,
    onLogLevel: (level) => options.upstream?.levelSet(level),
  });
}

/** The Skills extension as declared at initialize, or as the servers of the offer listed now declare it. */
function liveSkills(registry: ToolboxRegistry, cached: { directoryRead: boolean } | undefined): { directoryRead: boolean } | undefined {
  const listed = registry.configured.map((configured) => registry.slot(configured).listing?.skills).filter((skills) =>
    skills !== undefined
  );
  if (listed.length === 0) return cached;
  return { directoryRead: cached?.directoryRead === true || listed.some((skills) => skills.directoryRead) };
}

/**
 * The SDK quotes a message it could not place whole ("Received a response for an unknown message
 * ID: {...}"); a client's message may hold secrets and be megabytes long. The quote is left out.
 */
export function withoutQuotedMessage(text: string): string {
  const quote = text.search(/: [{[]/);
  return quote === -1 ? text : `${text.slice(0, quote)} (${text.length - quote - 2} characters of the message left out)`;
}
