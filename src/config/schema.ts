/**
 * The rules of workbench-config.json (valibot): every key, its type and bounds, which keys go
 * together, and the error text for each. What a valid file becomes is in types.ts.
 */
import * as v from "valibot";
import { firstReservedKey, isJsonObject, isNonEmptyString, isStringArray } from "./json-guards.ts";
import {
  boundedInteger,
  custom,
  EXPECTED_NON_EMPTY_STRING,
  EXPECTED_STRING,
  EXPECTED_TIMEOUT,
  MAX_TIMEOUT_MS,
  nonEmptyString,
  strictJsonObject,
  stringRecord,
} from "./schema-parts.ts";
import { telemetrySchema } from "./telemetry.ts";
import { authProblem, authSchema } from "./server-auth.ts";
import * as serve from "./serve.ts";
import { CONFIRM_WORDS, type ConfirmPolicy, DEFAULT_SETTINGS, JWT_ALGORITHMS, type ServerConfig, type ServerSettings } from "./types.ts";

// Messages name what was expected, never what was received: values can be secrets.
const EXPECTED_STRING_ARRAY = "expected an array of strings";
const EXPECTED_IDLE_TIMEOUT = `expected an integer of milliseconds, 0 for never (at most ${MAX_TIMEOUT_MS})`;
// A JavaScript string (one message) holds at most about 2^29 characters in V8 and JavaScriptCore alike.
const MAX_MESSAGE_BYTES = 512 * 1024 * 1024;
const EXPECTED_BYTES = `expected a positive integer of bytes (at most ${MAX_MESSAGE_BYTES})`;
// Paged results (issue 28): a token is estimated as 4 bytes, so no message holds more than this.
const MAX_RESULT_TOKENS = MAX_MESSAGE_BYTES / 4;
/** An approval question is a message a client shows whole: a million characters is past any screen. */
const MAX_CONFIRM_CHARS = 1_000_000;
const EXPECTED_RESULT_TOKENS = `expected an integer of tokens, 0 for never cut (at most ${MAX_RESULT_TOKENS})`;
/** The server name of the workbench's own tools (read_result): no configured server may take it. */
export const WORKBENCH_SERVER = "workbench";

export { JSON_SCHEMA_OF } from "./schema-parts.ts";

/** A JSON object of named items, each matching `item`, in file order. */
function namedItems<const TItem extends v.GenericSchema>(item: TItem, notObjectMessage: string) {
  return v.pipe(
    custom<Record<string, unknown>>(isJsonObject, notObjectMessage, { type: "object" }),
    v.check(
      (object) => firstReservedKey(object) === undefined,
      (issue) => `name '${firstReservedKey(issue.input)}' is reserved`,
    ),
    v.record(v.string(), item),
  );
}

const stringArray = () => custom<string[]>(isStringArray, EXPECTED_STRING_ARRAY, { type: "array", items: { type: "string" } });

/** Every key optional and without a default: an absent one falls back to the top level, then to DEFAULT_SETTINGS. */
const settingsEntries = {
  connectTimeoutMs: boundedInteger(MAX_TIMEOUT_MS, EXPECTED_TIMEOUT),
  callTimeoutMs: boundedInteger(MAX_TIMEOUT_MS, EXPECTED_TIMEOUT),
  maxCallTimeMs: boundedInteger(MAX_TIMEOUT_MS, EXPECTED_TIMEOUT),
  maxMessageBytes: boundedInteger(MAX_MESSAGE_BYTES, EXPECTED_BYTES),
  inheritEnv: v.optional(v.boolean("expected true or false")),
  validateArguments: v.optional(v.boolean("expected true or false")),
  idleTimeoutMs: boundedInteger(MAX_TIMEOUT_MS, EXPECTED_IDLE_TIMEOUT, 0),
  roots: v.optional(v.boolean("expected true or false")),
  maxResultTokens: boundedInteger(MAX_RESULT_TOKENS, EXPECTED_RESULT_TOKENS, 0),
  pin: v.optional(v.boolean("expected true or false")),
  confirmMaxChars: boundedInteger(MAX_CONFIRM_CHARS, `expected a positive integer of characters (at most ${MAX_CONFIRM_CHARS})`),
};

/**
 * Code mode (run_code): true or false, or its limits (each optional, the rest default). A toolbox's
 * value stands over the top level's, so `false` turns it off for one toolbox.
 */
const EXPECTED_CODE_MODE = "expected true, false or an object of limits";
const codeModeSchema = v.union([
  v.boolean(EXPECTED_CODE_MODE),
  strictJsonObject({
    timeoutMs: boundedInteger(MAX_TIMEOUT_MS, EXPECTED_TIMEOUT),
    memoryMiB: boundedInteger(1024, "expected an integer of MiB from 8 to 1024", 8),
    maxCalls: boundedInteger(100_000, "expected a positive integer (at most 100000)"),
    maxOutputBytes: boundedInteger(MAX_MESSAGE_BYTES, EXPECTED_BYTES),
  }, EXPECTED_CODE_MODE),
], EXPECTED_CODE_MODE);

/** Settable at the top of the file (for every toolbox) and per toolbox; optional, like settingsEntries. */
const toolboxSettingsEntries = {
  openDetail: v.optional(v.picklist(["full", "summary"], 'expected "full" or "summary"')),
  codeMode: v.optional(codeModeSchema),
};

const TRANSPORT = v.optional(v.picklist(["stdio", "http", "sse"], 'expected "stdio", "http" or "sse"'));

const privateKeyJwtSchema = strictJsonObject({
  keyFile: nonEmptyString(),
  alg: v.optional(v.picklist(JWT_ALGORITHMS, `expected one of ${JWT_ALGORITHMS.map((alg) => `"${alg}"`).join(", ")}`), "ES256"),
}, "expected an object");

type OAuthEntries = v.InferOutput<typeof oauthSchema>;

/** What is wrong with the combination of oauth keys, or undefined. */
function oauthProblem(oauth: OAuthEntries): string | undefined {
  if (oauth.grant === "client_credentials") {
    if (oauth.clientId === undefined) return `grant "client_credentials" needs 'clientId'`;
    if ((oauth.clientSecret === undefined) === (oauth.privateKeyJwt === undefined)) {
      return `grant "client_credentials" needs either 'clientSecret' or 'privateKeyJwt'`;
    }
    if (oauth.clientMetadataUrl !== undefined) return `'clientMetadataUrl' is for logins, not for grant "client_credentials"`;
    return undefined;
  }
  if (oauth.privateKeyJwt !== undefined) return `'privateKeyJwt' is for grant "client_credentials"`;
  return undefined;
}

const oauthSchema = strictJsonObject({
  grant: v.optional(v.picklist(["authorization_code", "client_credentials"], 'expected "authorization_code" or "client_credentials"')),
  clientId: v.optional(nonEmptyString()),
  clientSecret: v.optional(v.string(EXPECTED_STRING)),
  scopes: v.optional(stringArray()),
  clientMetadataUrl: v.optional(nonEmptyString()),
  privateKeyJwt: v.optional(privateKeyJwtSchema),
}, "expected an object");

/** Approval by the user and the audit log (issue 29 §2, §3): `confirm` per server, the log at the top. */
const isConfirmPolicy = (value: unknown): value is ConfirmPolicy =>
  (CONFIRM_WORDS as readonly unknown[]).includes(value) || (isStringArray(value) && value.every(isNonEmptyString));
const confirmSchema = () =>
  custom<ConfirmPolicy>(isConfirmPolicy, 'expected "never", "destructive", "all" or an array of tool names', {
    anyOf: [{ enum: [...CONFIRM_WORDS] }, { type: "array", items: { type: "string", minLength: 1 } }],
  });
const auditEntries = {
  auditLog: v.optional(nonEmptyString()),
  auditArguments: v.optional(v.boolean("expected true or false")),
};

const serverEntries = {
  command: v.optional(nonEmptyString()),
  args: v.optional(stringArray()),
  env: v.optional(stringRecord()),
  cwd: v.optional(nonEmptyString()),
  url: v.optional(nonEmptyString()),
  headers: v.optional(stringRecord()),
  oauth: v.optional(oauthSchema),
  auth: v.optional(authSchema),
  toolFilters: v.optional(stringArray()),
  // Each client served over HTTP gets its own process of a server unless it says "all" (types.ts).
  share: v.optional(v.picklist(["all"], 'expected "all"')),
  // `type` is what Claude Code, Cursor and VS Code write; `transport` is the spec's name for it.
  type: TRANSPORT,
  transport: TRANSPORT,
  confirm: v.optional(confirmSchema()),
  // Kept in the file but not started, listed or offered (as Windsurf's and Cline's "disabled").
  disabled: v.optional(v.boolean("expected true or false")),
  ...settingsEntries,
};

type ServerEntries = v.InferOutput<v.ObjectSchema<typeof serverEntries, undefined>>;

const STDIO_ONLY = ["command", "args", "env", "cwd"] as const;
const REMOTE_ONLY = ["url", "headers", "oauth", "auth"] as const;

/** What is wrong with the combination of keys, or undefined: a server is either a command or a url. */
function kindProblem(server: ServerEntries): string | undefined {
  const { type, transport } = server;
  if (type && transport && type !== transport) return `'type' ("${type}") and 'transport' ("${transport}") disagree`;
  const kind = type ?? transport;
  const stdioKey = STDIO_ONLY.find((key) => server[key] !== undefined);
  const remoteKey = REMOTE_ONLY.find((key) => server[key] !== undefined);
  if (stdioKey && remoteKey) return `'${stdioKey}' is for servers started as a command and cannot be used with '${remoteKey}'`;
  if (kind === "stdio" && remoteKey) return `'${remoteKey}' is for remote servers and cannot be used with type "stdio"`;
  if ((kind === "http" || kind === "sse") && stdioKey) {
    return `'${stdioKey}' is for servers started as a command and cannot be used with type "${kind}"`;
  }
  return undefined;
}

const isRemoteKind = (server: ServerEntries) => {
  const kind = server.type ?? server.transport;
  return kind === "http" || kind === "sse" || REMOTE_ONLY.some((key) => server[key] !== undefined);
};

/** A server as the file gives it: settings it does not set are filled in later from the top level. */
export type ServerEntry = ServerConfig extends infer T
  ? T extends ServerConfig ? Omit<T, keyof ServerSettings> & Partial<ServerSettings> : never
  : never;

/** A server as the file gives it, with `disabled` when the file says so (validate.ts sets those aside). */
export type ServerEntryOrDisabled = ServerEntry & { disabled?: boolean };

function toServerConfig(server: ServerEntries): ServerEntryOrDisabled {
  const { type, transport, command, args, env, cwd, url, headers, oauth, auth, ...rest } = server;
  const kind = type ?? transport;
  if (url !== undefined) {
    const remote = kind === "http" || kind === "sse" ? kind : "auto";
    return { ...rest, url, headers: headers ?? {}, ...(oauth && { oauth }), ...(auth && { auth }), transport: remote };
  }
  return { ...rest, command: command!, args: args ?? [], env: env ?? {}, ...(cwd !== undefined && { cwd }), transport: "stdio" };
}

/** A server's keys as the file may hold them; serverSchema adds the rules between them. */
export const serverObjectSchema = strictJsonObject(serverEntries, "expected an object");

/** Passes every server: a place for json-schema.ts to describe one, as it has checks no generator can read. */
export const serverShape = v.custom<ServerEntryOrDisabled>(() => true);

export const serverSchema = v.pipe(
  serverObjectSchema,
  v.check((server) => kindProblem(server) === undefined, (issue) => kindProblem(issue.input)!),
  // A missing command or url reports at that key, like any other missing required key (once the
  // keys agree on what kind of server this is: with every problem reported, it would be said twice).
  v.forward(
    v.check((server) => kindProblem(server) !== undefined || !isRemoteKind(server) || server.url !== undefined, EXPECTED_NON_EMPTY_STRING),
    ["url"],
  ),
  v.forward(
    v.check(
      (server) => kindProblem(server) !== undefined || isRemoteKind(server) || server.command !== undefined,
      EXPECTED_NON_EMPTY_STRING,
    ),
    ["command"],
  ),
  v.forward(
    v.check((server) => !server.oauth || oauthProblem(server.oauth) === undefined, (issue) => oauthProblem(issue.input.oauth!)!),
    ["oauth"],
  ),
  v.forward(v.check((server) => authProblem(server) === undefined, (issue) => authProblem(issue.input)!), ["auth"]),
  v.transform(toServerConfig),
  // Last in the pipeline, so that the JSON Schema generator describes the server here (json-schema.ts).
  serverShape,
);

const toolboxSchema = strictJsonObject({
  description: v.optional(v.string(EXPECTED_STRING), ""),
  mcpServers: v.optional(
    v.pipe(
      custom<Record<string, unknown>>(isJsonObject, "expected an object of servers", { type: "object" }),
      v.check(
        (servers) => !Object.hasOwn(servers, WORKBENCH_SERVER),
        `name '${WORKBENCH_SERVER}' is reserved for the workbench's own tools (read_result, read_skill)`,
      ),
      namedItems(serverSchema, "expected an object of servers"),
    ),
    () => ({}),
  ),
  ...toolboxSettingsEntries,
}, "expected an object");

// serve: who may use the workbench served over HTTP. The rules' words and checks are in serve.ts.
const serveClientSchema = strictJsonObject({
  tokenSha256: v.optional(custom<string>(serve.isSha256Hex, serve.EXPECTED_SHA256, { type: "string", pattern: serve.SHA256_HEX.source })),
  token: v.optional(
    custom<string>(serve.isTokenReference, serve.EXPECTED_TOKEN, { type: "string", pattern: serve.TOKEN_REFERENCE.source }),
  ),
  toolboxes: custom<string[]>(serve.isNameList, serve.EXPECTED_GRANTS, {
    type: "array",
    items: { type: "string", minLength: 1 },
    minItems: 1,
  }),
  secrets: v.optional(stringRecord()),
}, "expected an object");

const serveSchema = strictJsonObject({
  clients: v.optional(namedItems(serveClientSchema, "expected an object of clients")),
  oauth: v.optional(strictJsonObject({
    issuer: nonEmptyString(),
    jwksUri: custom<string>(serve.isFetchableUrl, serve.EXPECTED_JWKS_URI, { type: "string", format: "uri" }),
    audience: custom<string[]>(serve.isNameList, serve.EXPECTED_AUDIENCE, {
      type: "array",
      items: { type: "string", minLength: 1 },
      minItems: 1,
    }),
  }, "expected an object")),
  allowedOrigins: v.optional(custom<string[]>(serve.isOriginList, serve.EXPECTED_ORIGINS, { type: "array", items: { type: "string" } })),
  sessionIdleMinutes: boundedInteger(serve.MAX_SESSION_IDLE_MINUTES, serve.EXPECTED_IDLE_MINUTES),
  // Where sessions keep their state, shared by replicas (issue 48): redis://, rediss://, valkey://.
  store: v.optional(
    custom<string>(serve.isStoreUrl, serve.EXPECTED_STORE, { type: "string", pattern: "^(redis|rediss|valkey|valkeys)://" }),
  ),
}, "expected an object");

/** The shape of a parsed configuration file, before environment variables are expanded. */
export const configFileSchema = strictJsonObject({
  $schema: v.optional(v.string(EXPECTED_STRING)),
  // JSON has no comments: a starter file (mcp-workbench init) explains itself here.
  $comment: v.optional(v.string(EXPECTED_STRING)),
  toolboxes: namedItems(toolboxSchema, "expected an object of toolboxes"),
  serve: v.optional(serveSchema),
  // The search_tools meta-tool (issue 39): absent or false, the tool list is as without it; an
  // object turns it on with settings: "learn": false keeps it from learning from use (issue 53).
  toolSearch: v.optional(v.union([
    v.boolean(),
    strictJsonObject({ learn: v.optional(v.boolean("expected true or false")) }, "expected an object"),
  ], 'expected true, false or an object such as {"learn": false}')),
  // OpenTelemetry export (issue 50): the file's keys over the OTEL_* variables.
  telemetry: v.optional(telemetrySchema),
  ...auditEntries,
  ...settingsEntries,
  ...toolboxSettingsEntries,
}, 'expected a JSON object with a "toolboxes" key');
