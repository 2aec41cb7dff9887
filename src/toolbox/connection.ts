/**
 * One downstream server: the SDK Client that speaks to it over a link (a child process or a URL),
 * the tools/call lane, timeouts, progress, cancellation, and what happens when the link is lost.
 */
import {
  type CallToolResult,
  Client,
  type ClientCapabilities,
  ErrorCode,
  type JSONRPCMessage,
  ListToolsResultSchema,
  McpError,
  type Progress,
  type RequestId,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  type Tool,
  ToolListChangedNotificationSchema,
} from "../sdk.ts";
import { EMPTY_CATALOG, listCatalog, type ServerCatalog } from "../catalog/server-catalog.ts";
import { isRemote, type ServerConfig } from "../config/index.ts";
import type { Platform } from "../platform/types.ts";
import { RefusedMessage } from "../transport/stream-transport.ts";
import type { FlowGate } from "../transport/flow-gate.ts";
import { MAX_JSON_DEPTH } from "../transport/json-depth.ts";
import { NAME, VERSION } from "../version.ts";
import { CallError, type CallInFlight, ToolCallLane } from "./call-lane.ts";
import { callAsTask, requiresTask } from "./task-call.ts";
import { Rerun } from "./rerun.ts";
import { messageOf } from "../errors.ts";
import type { ServerLink } from "./link.ts";
import { type CallInput, MODERN_VERSION } from "../era/wire.ts";
import { StdioLink } from "./stdio-link.ts";
import { lazySchemaValidator } from "../schema-validator.ts";
import { MessageRefused, SessionExpired } from "../remote/link-errors.ts";
import type { RemoteAuth } from "../remote/remote-auth.ts";
import type { ChatLogin } from "../remote/chat-login.ts";
import type { CommandSearch } from "./command-path.ts";
import type { Upstream } from "../relay/upstream.ts";
import { DownstreamRelay } from "../relay/downstream-relay.ts";
import type { ServerCalls } from "../relay/question-owner.ts";
import { EraLink, type EraMemory, ExitedDuringProbe } from "../era/era-link.ts";

/** How long a failure waits for the child's exit status, to name it instead of a broken pipe. */
const EXIT_REPORT_MS = 500;
/** Guards against a server whose nextCursor never ends. */
const MAX_TOOL_PAGES = 1_000;

export interface ConnectionTarget {
  toolbox: string;
  server: string;
  config: ServerConfig;
}

export type ConnectionHost = Pick<Platform, "spawn" | "env" | "writeStderr" | "windows"> & {
  /** Reading from servers waits while this is held: the client is not taking what we send. */
  readGate?: FlowGate;
  /** Held while a server is not taking what we send it: reading from the client waits. */
  sendGate?: FlowGate;
  /** Tokens for remote servers that need OAuth; without it a 401 is an error like any other. */
  auth?: RemoteAuth;
  /** Where a command not on the child's PATH is looked for; without it, nowhere else. */
  commandSearch?: CommandSearch;
  /** The client in front of us, whose capabilities each server is given; none for the subcommands. */
  upstream?: Upstream;
  /** A login the user gives in the client (URL elicitation); none for the subcommands. */
  chatLogin?: ChatLogin;
  /** Which protocol era each server definition speaks, from earlier starts: a 2025 server is not probed again. */
  eras?: EraMemory;
};

/** A call's own limits: each toolbox that shares a server keeps those it configured. */
export type CallLimits = Pick<ServerConfig, "callTimeoutMs" | "maxCallTimeMs">;

export interface CallOptions {
  signal?: AbortSignal;
  /** Downstream progress, for the client that asked for it. */
  onProgress?: (progress: Progress) => void;
  /** The limits of the toolbox's server entry; the connection's own configuration otherwise. */
  limits?: CallLimits;
  /** The client's request (a use_tool call) this call serves. */
  relatedRequestId?: RequestId;
  /** What a 2026-07-28 client's retry carries for the server. */
  input?: CallInput;
}

export class ServerConnection {
  readonly target: ConnectionTarget;
  /** Every tool the server lists, as it lists them: toolFilters are each toolbox's own view. */
  tools: Tool[] = [];
  /** What the server's initialize result says about using it, if anything. */
  instructions?: string;
  /** The server changed its tools (notifications/tools/list_changed) and they were listed again. */
  onToolsChanged?: () => void;
  /** Prompts, resources and resource templates, as last listed (empty when not declared). */
  catalog: ServerCatalog = EMPTY_CATALOG;
  /** The server changed its prompts or resources and they were listed again. */
  onCatalogChanged?: () => void;
  /** notifications/resources/updated from the server, for a subscribed URI. */
  onResourceUpdated?: (uri: string) => void;
  /** Set once the connection is lost; the reason says why. */
  lostReason?: string;
  /** What our Client declared to the server: some servers list tools by it. */
  declared: ClientCapabilities = {};
  readonly #host: ConnectionHost;
  readonly #openLink: () => ServerLink | Promise<ServerLink>;
  /** Set at once for a child (spawned by `open`), on connect for a remote server. */
  #link!: ServerLink;
  #firstLink?: Promise<ServerLink>;
  /** Why the link itself ended, as it said (a crash, a network failure). */
  #linkLost?: string;
  #client!: Client;
  #lane?: ToolCallLane;
  /** The calls run as tasks, in flight: the requests of a task are its call's. */
  readonly #taskCalls = new Set<CallInFlight>();
  #relay?: DownstreamRelay;
  #closing?: Promise<void>;
  /** A new session after the server forgot ours, shared by the calls that found out. */
  #renewing?: Promise<void>;
  /** Lists again after notifications/tools/list_changed, one list at a time. */
  #relistTools?: Rerun;

  private constructor(target: ConnectionTarget, host: ConnectionHost, openLink: () => ServerLink | Promise<ServerLink>) {
    this.target = target;
    this.#host = host;
    this.#openLink = openLink;
    const link = openLink();
    if (link instanceof Promise) this.#firstLink = link;
    else this.#link = this.#attach(link);
  }

  /** Spawns a stdio server (throws if it cannot start) or prepares a remote one. */
  static open(target: ConnectionTarget, host: ConnectionHost): ServerConnection {
    const log = (text: string) => host.writeStderr(`[${target.toolbox}/${target.server}] ${text}\n`);
    const { config } = target;
    // Each link finds out at initialize whether its server speaks 2026-07-28 or 2025-11-25.
    const era = (link: ServerLink) => new EraLink(link, config, host.eras);
    if (!isRemote(config)) {
      return new ServerConnection(target, host, () => {
        const link = StdioLink.spawn({ ...target, config }, host, log);
        return link instanceof Promise ? link.then(era) : era(link);
      });
    }
    // The SDK's HTTP code loads with the first remote server, not at start-up.
    return new ServerConnection(target, host, async () => {
      const { HttpLink } = await import("../remote/http-link.ts");
      const authProvider = host.auth?.provider({ ...target, config });
      return era(new HttpLink({ config, authProvider, log, readGate: host.readGate }));
    });
  }

  /** Initializes the session and lists its tools; rejects with a short reason on failure. */
  async connect(): Promise<void> {
    const { connectTimeoutMs } = this.target.config;
    if (this.#firstLink) this.#link = this.#attach(await this.#firstLink);
    this.#firstLink = undefined;
    const link = this.#link;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let timedOut = false;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        reject(new Error(`connection timeout after ${connectTimeoutMs} ms (connectTimeoutMs)`));
      }, connectTimeoutMs);
    });
    try {
      await Promise.race([this.#initialize(connectTimeoutMs), timeout]);
    } catch (error) {
      // The server's own error answer (an unsupported protocol version) is the reason, even if it exited after it.
      const answered = isServerAnswer(error);
      const ended = timedOut || answered ? undefined : await link.endedWithin(EXIT_REPORT_MS);
      // Why the link was lost (a remote server out of reach) says more than the SDK's error.
      const lost = timedOut || answered ? undefined : this.#linkLost;
      const reason = ended ? `${ended} during initialization` : link.redact(lost ?? messageOf(error));
      // MCP clients hide our stderr: what the server said last goes into the message itself.
      const explained = await link.explain?.(reason) ?? reason;
      await this.close({ graceful: false });
      const Failure = link instanceof EraLink && link.exitedDuringProbe ? ExitedDuringProbe : Error;
      throw new Failure(explained, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  /** A fresh SDK Client and tools/call lane on the link. */
  #attach(link: ServerLink): ServerLink {
    this.#relay?.dispose();
    const taskCalls = this.#taskCalls;
    const relay = this.#relayFor({ inFlight: () => [...lane.inFlight(), ...taskCalls], askedFor: (id) => link.askedFor?.(id) });
    const capabilities = this.declared = relay?.capabilities ?? {};
    const client = new Client({ name: NAME, version: VERSION }, { capabilities, jsonSchemaValidator: lazySchemaValidator });
    relay?.handle(client);
    const lane: ToolCallLane = new ToolCallLane((message) => this.#sendForLane(link, lane, message));
    link.claim = (message) => lane.claim(message);
    link.onLost = (reason) => {
      if (this.#link !== link) return;
      this.#linkLost = reason;
      this.lostReason ??= reason;
      lane.close();
      relay?.dispose();
      void client.close().catch(() => {});
    };
    link.transport.onerror = (error) => {
      this.#log(link.redact(error.message));
      if (error instanceof RefusedMessage && error.tooDeep) {
        this.#break(`server sent a message nested deeper than ${MAX_JSON_DEPTH} levels`);
      }
    };
    this.#client = client;
    this.#lane = lane;
    this.#relay = relay;
    this.#linkLost = undefined;
    return link;
  }

  /** What the client in front of us lets this server ask and tell it, if a client is there. */
  #relayFor(calls: ServerCalls): DownstreamRelay | undefined {
    const upstream = this.#host.upstream;
    if (!upstream) return undefined;
    const { toolbox, server, config } = this.target;
    const target = { toolbox, server, roots: config.roots, requestTimeoutMs: config.maxCallTimeMs };
    return new DownstreamRelay(upstream, target, calls, (text) => this.#log(text));
  }

  /**
   * A request a remote server refused alone (an HTTP error status) is answered like a JSON-RPC
   * error, so the call fails with the reason; a link that is gone fails every call.
   */
  async #sendForLane(link: ServerLink, lane: ToolCallLane, message: JSONRPCMessage): Promise<void> {
    try {
      await link.transport.send(message);
    } catch (error) {
      const id = "id" in message ? message.id : undefined;
      if (!(error instanceof MessageRefused) || id === undefined) throw error;
      lane.claim({ jsonrpc: "2.0", id, error: { code: -32603, message: error.message } });
    }
  }

  /**
   * The SDK's own request timeout (60 s by default) would cut a longer connectTimeoutMs short, so
   * each request gets the connect timeout. tools/list goes through request(), not listTools(),
   * which would compile a validator for every outputSchema: never used (calls take the lane),
   * and a schema the validator rejects would fail the whole server.
   */
  async #initialize(timeout: number): Promise<void> {
    const client = this.#client;
    client.onclose = () => {
      if (this.#client !== client) return;
      this.lostReason ??= "connection closed";
      this.#lane?.close();
    };
    const relistTools = this.#relistTools = new Rerun(() => this.#toolsChanged(client));
    const relistCatalog = new Rerun(() => this.#catalogChanged(client));
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => relistTools.request());
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => relistCatalog.request());
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => relistCatalog.request());
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      if (this.#client === client) this.onResourceUpdated?.(notification.params.uri);
    });
    await client.connect(this.#link.transport, { timeout });
    this.#relay?.connected(client);
    this.instructions = client.getInstructions() || undefined;
    this.tools = await this.#listTools(client, timeout);
    this.catalog = await listCatalog(client, timeout, (text) => this.#log(this.#link.redact(text)));
  }

  /** Prompts or resources changed: list them again; false once this client is no longer ours. */
  async #catalogChanged(client: Client): Promise<boolean> {
    if (this.#client !== client || this.lostReason) return false;
    const catalog = await listCatalog(client, this.target.config.connectTimeoutMs, (text) => this.#log(this.#link.redact(text)));
    if (this.#client !== client) return false;
    this.catalog = catalog;
    this.onCatalogChanged?.();
    return !this.lostReason;
  }

  /**
   * A request passed on as the client made it (prompts/get, resources/read, completion/complete,
   * resources/subscribe): the server's answer, or its error, comes back as it gave it.
   */
  request<T>(method: string, params: Record<string, unknown>, schema: Parameters<Client["request"]>[1]): Promise<T> {
    if (this.lostReason) return Promise.reject(new Error(this.lostReason));
    const { callTimeoutMs, maxCallTimeMs } = this.target.config;
    const options = { timeout: callTimeoutMs, resetTimeoutOnProgress: true, maxTotalTimeout: maxCallTimeMs || undefined };
    return this.#client.request({ method, params }, schema, options) as Promise<T>;
  }

  async #listTools(client: Client, timeout: number): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const params = cursor === undefined ? {} : { cursor };
      const result = await client.request({ method: "tools/list", params }, ListToolsResultSchema, { timeout });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) break;
    }
    return tools;
  }

  /** Resolves once the tools are listed as the server last said they changed. */
  toolsSettled(): Promise<void> {
    return this.#relistTools?.settled() ?? Promise.resolve();
  }

  /** The server's tools changed: list them again; false once this client is no longer ours, or it failed. */
  async #toolsChanged(client: Client): Promise<boolean> {
    if (this.#client !== client || this.lostReason) return false;
    try {
      const tools = await this.#listTools(client, this.target.config.connectTimeoutMs);
      if (this.#client !== client) return false;
      // A new array: each toolbox's view made from the old one sees that it is stale.
      this.tools = tools;
      this.onToolsChanged?.();
      return !this.lostReason;
    } catch (error) {
      this.#log(`listing the changed tools failed: ${this.#link.redact(messageOf(error))}`);
      return false;
    }
  }

  /**
   * Calls a tool and returns its result as the server gave it. Progress from the server resets the
   * call timeout (callTimeoutMs); maxCallTimeMs caps the call whatever the progress. A remote
   * server that forgot our session is initialized again, once, and the call sent again.
   */
  async callTool(name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<CallToolResult> {
    const link = this.#link;
    const limits = options.limits ?? this.target.config;
    try {
      return await this.#call(name, args, options);
    } catch (error) {
      if (link.sessionExpired && !this.#closing && !options.signal?.aborted) {
        try {
          await this.#renew(link);
        } catch (renewError) {
          throw new Error(`${new SessionExpired().message}; initializing again failed: ${messageOf(renewError)}`);
        }
        return await this.#call(name, args, options).catch(async (retryError) => {
          throw new Error(this.#link.redact(await this.#explain(retryError, limits)), { cause: retryError });
        });
      }
      throw new Error(link.redact(await this.#explain(error, limits)), { cause: error });
    }
  }

  #call(name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolResult> {
    if (this.lostReason || !this.#lane) return Promise.reject(new Error(this.lostReason ?? "not connected"));
    const { callTimeoutMs, maxCallTimeMs } = options.limits ?? this.target.config;
    const call = {
      name,
      arguments: args,
      idleTimeoutMs: callTimeoutMs,
      maxTimeMs: maxCallTimeMs,
      signal: options.signal,
      onProgress: options.onProgress,
      relatedRequestId: options.relatedRequestId,
      // Only a 2026-07-28 server has input requests: a 2025 one never sees these fields.
      input: this.#link instanceof EraLink && this.#link.era === MODERN_VERSION ? options.input : undefined,
    };
    if (requiresTask(this.tools.find((tool) => tool.name === name))) return callAsTask(this.#client, call, undefined, this.#taskCalls);
    return this.#lane.call(call);
  }

  /** Drops the expired session and initializes a new one on a new link. */
  #renew(expired: ServerLink): Promise<void> {
    if (this.#link !== expired) return this.#renewing ?? Promise.resolve();
    this.#renewing ??= (async () => {
      this.#log("session expired; initializing again");
      const linkClosed = expired.close({ graceful: false }).catch(() => {});
      await this.#client.close().catch(() => {});
      await linkClosed;
      this.#link = this.#attach(await this.#openLink());
      this.lostReason = undefined;
      await this.connect();
    })().finally(() => (this.#renewing = undefined));
    return this.#renewing;
  }

  /** The words for a failed call: a crash names the exit, a timeout names its limit. */
  async #explain(error: unknown, { callTimeoutMs, maxCallTimeMs }: CallLimits): Promise<string> {
    if (!(error instanceof CallError)) return messageOf(error);
    switch (error.failure.kind) {
      case "remote":
        return error.failure.message;
      case "idle-timeout":
        return `no answer within the call timeout of ${callTimeoutMs} ms (callTimeoutMs)`;
      case "max-time":
        return `call exceeded the maximum call time of ${maxCallTimeMs} ms (maxCallTimeMs)`;
      case "cancelled":
        return "cancelled by the client";
      case "closed": {
        const ended = this.#closing ? undefined : await this.#link.endedWithin(EXIT_REPORT_MS);
        // A crash during the call: what the server said last on stderr, as for a failed start.
        if (ended) return await this.#link.explain?.(ended) ?? ended;
        return this.lostReason ?? "connection closed";
      }
    }
  }

  /** Ends the session and the link: a child gets its stdin closed, then SIGTERM and SIGKILL. */
  close({ graceful = true } = {}): Promise<void> {
    this.#closing ??= this.#shutdown(graceful);
    return this.#closing;
  }

  async #shutdown(graceful: boolean): Promise<void> {
    this.lostReason ??= "connection closed";
    this.#lane?.close();
    this.#relay?.dispose();
    // The link first: it must know a close is coming before the child leaves. One still being
    // opened (a command looked for on the login shell's PATH) is closed once it is there.
    const link = this.#link ?? await this.#firstLink?.catch(() => undefined);
    const linkClosed = link?.close({ graceful });
    await this.#client?.close().catch(() => {});
    await linkClosed;
  }

  /**
   * The server sent what we cannot read (a message nested deeper than any parser here can walk):
   * what it says next cannot be trusted either. Pending calls fail now with the reason; the next
   * call starts the server again, as after a crash.
   */
  #break(reason: string): void {
    if (this.lostReason) return;
    this.lostReason = reason;
    void this.close({ graceful: false });
  }

  #log(text: string): void {
    this.#host.writeStderr(`[${this.target.toolbox}/${this.target.server}] ${text}\n`);
  }
}

/** A JSON-RPC error the server sent, not one the SDK made up for a closed link or a timeout. */
function isServerAnswer(error: unknown): boolean {
  return error instanceof McpError && error.code !== ErrorCode.ConnectionClosed && error.code !== ErrorCode.RequestTimeout;
}
