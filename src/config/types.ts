/**
 * The configuration as the rest of the workbench reads it, once loaded: servers (a command or a
 * URL), their settings and defaults, toolboxes. The file's own rules are in schema.ts.
 */
import type { TelemetryFileSettings } from "../telemetry/settings.ts";

/** Limits and policies settable at the top of the file (for every server) and per server. */
export interface ServerSettings {
  /** Time to start, initialize and list tools. */
  connectTimeoutMs: number;
  /** Time a call may go without an answer or a progress notification. */
  callTimeoutMs: number;
  /** Time a call may take at all, progress or not. */
  maxCallTimeMs: number;
  /** Largest message accepted from the server, in bytes. */
  maxMessageBytes: number;
  /** Pass our whole environment to the server, not just the minimal set. */
  inheritEnv: boolean;
  /** Check use_tool's arguments against the tool's inputSchema before calling the server. */
  validateArguments: boolean;
  /** Stop the server after this long without a call (0: never); the next call starts it again. */
  idleTimeoutMs: number;
  /** Give the server the client's roots, as a client connected directly would (false: its own arguments only). */
  roots: boolean;
  /** Largest use_tool result given whole, in estimated tokens; a larger one is cut and the rest read in pages (0: never cut). */
  maxResultTokens: number;
  /** Pin the server's tools in workbench-lock.json and withhold those that change (false: trust whatever it lists). */
  pin: boolean;
  /** Longest arguments a `confirm` question shows whole, in characters; longer ones cannot be approved. */
  confirmMaxChars: number;
}

export const DEFAULT_SETTINGS: Readonly<ServerSettings> = {
  connectTimeoutMs: 30_000,
  callTimeoutMs: 60_000,
  maxCallTimeMs: 600_000,
  maxMessageBytes: 64 * 1024 * 1024,
  inheritEnv: false,
  validateArguments: true,
  idleTimeoutMs: 0,
  roots: true,
  maxResultTokens: 25_000,
  pin: true,
  confirmMaxChars: 10_000,
};

/** What open_toolbox returns when not told: the spec's full entries, or one summary line per tool. */
export type OpenDetail = "full" | "summary";
export const DEFAULT_OPEN_DETAIL: OpenDetail = "full";

/**
 * Who uses one process (or remote session) of a server when several clients are served (over
 * HTTP): each client its own by default, so a server's state is never another client's.
 */
export interface ServerSharing {
  /** "all": every client uses the one process (for stateless servers). */
  share?: "all";
  /**
   * Set at load, never in the file: why the server cannot be configured (an unset variable in
   * it). The server fails alone with this message, and is never started.
   */
  unconfigured?: string;
  /**
   * Set at load, never in the file: the definition as the file wrote it, before ${VAR} was
   * expanded (sharingKey of it). Pins recognise a definition by it (toolboxes/lock-format.ts): the
   * same on every machine that reads the file, and no secret's value is in it. Not enumerable, so a
   * copy made by spreading has none, and pins fall back to the definition as expanded.
   */
  readonly written?: string;
  /** Set by the pool, never in the file: the member's values put in for `${client:NAME}` (member-secrets.ts), masked. Not enumerable. */
  readonly memberValues?: readonly string[];
  /** Set by the pool with `unconfigured`: the first `${client:NAME}` the member lacks (they may provide it). Not enumerable. */
  readonly missingSecret?: string;
}

/** A server the workbench starts as a child process and speaks to over its stdin and stdout. */
export interface StdioServerConfig extends ServerSettings, ServerSharing {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  toolFilters?: string[];
  transport: "stdio";
  /** Set at load, with inheritEnv: our variables the configuration reads as secrets, not inherited (config/secret-variables.ts). */
  withheldEnv?: string[];
  confirm?: ConfirmPolicy;
}

/**
 * How the workbench gets tokens for a server. The default grant, authorization_code, is a login
 * by the user (`mcp-workbench auth`); its client is a Client ID Metadata Document at
 * clientMetadataUrl where the authorization server takes one, else a dynamic registration, else
 * the configured clientId. client_credentials gets tokens with no one present, with clientSecret
 * or a key that signs a JWT (privateKeyJwt).
 */
export interface OAuthSettings {
  grant?: "authorization_code" | "client_credentials";
  clientId?: string;
  clientSecret?: string;
  scopes?: string[];
  clientMetadataUrl?: string;
  privateKeyJwt?: PrivateKeyJwtSettings;
}

/**
 * Token exchange (RFC 8693): the token a member signed in with (`serve.oauth`) is exchanged at
 * `tokenEndpoint` for one with `audience` (and `scope`), as client `clientId`.
 */
export interface TokenExchangeSettings {
  tokenEndpoint: string;
  audience: string;
  scope?: string;
  clientId: string;
  clientSecret?: string;
}

/** A private key in a PEM file that signs the client's assertion (RFC 7523). */
export interface PrivateKeyJwtSettings {
  keyFile: string;
  alg: JwtAlgorithm;
}

export const JWT_ALGORITHMS = ["ES256", "ES384", "ES512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "EdDSA"] as const;
export type JwtAlgorithm = typeof JWT_ALGORITHMS[number];

/**
 * A server reached at a URL: "http" is Streamable HTTP, "sse" the older HTTP+SSE transport, and
 * "auto" (a url without type) tries Streamable HTTP and falls back to SSE as the MCP spec says.
 */
export interface RemoteServerConfig extends ServerSettings, ServerSharing {
  url: string;
  headers: Record<string, string>;
  oauth?: OAuthSettings;
  /** Each member's token for the server, exchanged for the member's own (issue 49 §4, auth/token-exchange.ts). */
  auth?: { tokenExchange: TokenExchangeSettings };
  toolFilters?: string[];
  transport: "http" | "sse" | "auto";
  confirm?: ConfirmPolicy;
}

export type ServerConfig = StdioServerConfig | RemoteServerConfig;

export function isRemote(config: ServerConfig): config is RemoteServerConfig {
  return config.transport !== "stdio";
}

export interface ToolboxConfig {
  description: string;
  /** From the toolbox, else from the top of the file, else DEFAULT_OPEN_DETAIL. */
  openDetail: OpenDetail;
  /** Code mode's limits when run_code may run scripts against this toolbox; absent: code mode is off. */
  codeMode?: CodeModeLimits;
  /** Servers in the order the file lists them, but for those set `"disabled": true`. */
  mcpServers: Record<string, ServerConfig>;
  /** The servers set `"disabled": true`, by name in file order: never started, listed or offered. */
  disabledServers?: string[];
}

/** The limits of one run_code script (`"codeMode": true` takes every default). */
export interface CodeModeLimits {
  /** Time the whole script may take, its tool calls included. */
  timeoutMs: number;
  /** Memory of the script's JavaScript engine, in MiB. */
  memoryMiB: number;
  /** Tool calls one script may make. */
  maxCalls: number;
  /** Largest returned value, as JSON, in bytes (the logs have as much again). */
  maxOutputBytes: number;
}

export const DEFAULT_CODE_MODE: Readonly<CodeModeLimits> = {
  timeoutMs: 30_000,
  memoryMiB: 64,
  maxCalls: 200,
  maxOutputBytes: 1024 * 1024,
};

export interface WorkbenchConfig extends AuditSettings {
  /** Toolboxes in the order the file lists them. */
  toolboxes: Record<string, ToolboxConfig>;
  /** Who may use the workbench served over HTTP, and how; absent: one open user on loopback. */
  serve?: ServeConfig;
  /** Offer the search_tools meta-tool (absent: not offered); an object: offered, with its settings. */
  toolSearch?: boolean | ToolSearchSettings;
  /**
   * OpenTelemetry export, over the OTEL_* variables (src/telemetry/settings.ts). Set at load:
   * `unconfigured`, why it cannot be used (an unset variable in it): telemetry is off then.
   */
  telemetry?: TelemetryFileSettings;
}

/** `"toolSearch": {...}`: search on, with these settings. */
export interface ToolSearchSettings {
  /** Learn from the tool called after a search (default true); false: never kept, never used. */
  learn?: boolean;
}

/**
 * The `serve` key: who may use the workbench served over HTTP (`serve --http`). Static bearer
 * tokens per client, JWTs from an OAuth authorization server, the browser origins let in.
 */
export interface ServeConfig {
  /** Static bearer tokens by client name, in file order. */
  clients: Record<string, ServeClientConfig>;
  oauth?: ServeOAuthConfig;
  /** Browser origins let in besides loopback ones, as `scheme://host[:port]`. */
  allowedOrigins: string[];
  /** A 2025-11-25 session unused this long ends (its client gets 404 and starts another). */
  sessionIdleMinutes: number;
  /** Where sessions keep their state, shared by replicas (`redis://...`, `${VAR}` expanded); absent: memory. */
  store?: string;
  /** Why `store` could not be read (an unset variable in it): serving refuses to start. */
  storeUnreadable?: string;
}

/** One client's token (hashed in the file, or from the environment: never both) and its toolboxes. */
export interface ServeClientConfig {
  /** The SHA-256 of the token, 64 lowercase hex digits. */
  tokenSha256?: string;
  /** The token itself, once `${VAR}` is expanded. */
  token?: string;
  /** Set at load: why the token cannot be read (its variable is unset or empty); the client is refused. */
  unreadable?: string;
  /** The toolboxes it may see and use; "*" for every one. */
  toolboxes: "*" | string[];
  /** Its own secrets, `${client:NAME}` in servers (a value, or `${VAR}` expanded at load). */
  secrets?: Record<string, string>;
  /** Set at load: why each secret that cannot be read cannot (its variable is unset); the member lacks it. */
  secretsUnreadable?: Record<string, string>;
}

/** The workbench as an OAuth 2.1 resource server: JWTs signed by the issuer's keys. */
export interface ServeOAuthConfig {
  issuer: string;
  jwksUri: string;
  /** A token's `aud` must name one of these. */
  audience: string[];
}

export const DEFAULT_SESSION_IDLE_MINUTES = 30;

/**
 * Which of a server's tools the user approves before each call (see src/trust/): none ("never",
 * the default when absent), those annotated `destructiveHint: true`, all, or the tools named.
 */
export type ConfirmPolicy = "never" | "destructive" | "all" | string[];
export const CONFIRM_WORDS = ["never", "destructive", "all"] as const;

/** The audit log of tool calls, set at the top of the file (see src/trust/audit-log.ts). */
export interface AuditSettings {
  /** Absolute once loaded: a relative path is taken from the configuration file's folder. */
  auditLog?: string;
  /** Record each call's arguments too (secrets masked). */
  auditArguments?: boolean;
}
