/**
 * The configuration as the rest of the workbench reads it, once loaded: servers (a command or a
 * URL), their settings and defaults, toolboxes. The file's own rules are in schema.ts.
 */
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
}

/** A server the workbench starts as a child process and speaks to over its stdin and stdout. */
export interface StdioServerConfig extends ServerSettings, ServerSharing {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  toolFilters?: string[];
  transport: "stdio";
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
  toolFilters?: string[];
  transport: "http" | "sse" | "auto";
}

export type ServerConfig = StdioServerConfig | RemoteServerConfig;

export function isRemote(config: ServerConfig): config is RemoteServerConfig {
  return config.transport !== "stdio";
}

export interface ToolboxConfig {
  description: string;
  /** From the toolbox, else from the top of the file, else DEFAULT_OPEN_DETAIL. */
  openDetail: OpenDetail;
  /** Servers in the order the file lists them. */
  mcpServers: Record<string, ServerConfig>;
}

export interface WorkbenchConfig {
  /** Toolboxes in the order the file lists them. */
  toolboxes: Record<string, ToolboxConfig>;
}
