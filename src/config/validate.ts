/** A parsed file checked against the schema, defaults filled in: every problem reported at once. */
import * as v from "valibot";
import { ConfigError, invalidAt } from "./errors.ts";
import type { PathSegment } from "./path.ts";
import { configFileSchema } from "./schema.ts";
import { resolveServe } from "./serve.ts";
import {
  type CodeModeLimits,
  DEFAULT_CODE_MODE,
  DEFAULT_OPEN_DETAIL,
  DEFAULT_SETTINGS,
  type ServerConfig,
  type ServerSettings,
  type WorkbenchConfig,
} from "./types.ts";

/**
 * Checks parsed JSON against the configuration schema and applies defaults. Throws one ConfigError
 * that lists every problem found, each at its location. `source` (the file's path) goes into the
 * advice for a file in an MCP client's shape.
 */
export function validateConfig(data: unknown, source?: string): WorkbenchConfig {
  const result = v.safeParse(configFileSchema, data, {
    abortEarly: false,
    // Every schema sets its own message; this fallback keeps out valibot's default, which quotes the value.
    message: () => "has an invalid value",
  });
  if (!result.success) throw ConfigError.of(describeIssues(data, result.issues, source), source);
  const {
    toolboxes,
    $schema: _schema,
    $comment: _comment,
    openDetail,
    codeMode,
    serve: serveEntries,
    auditLog,
    auditArguments,
    toolSearch,
    telemetry,
    ...topLevel
  } = result.output;
  const resolved = Object.entries(toolboxes).map(([name, toolbox]) => {
    // A disabled server is set aside by name: nothing starts, lists or expands it.
    const entries = Object.entries(toolbox.mcpServers);
    const disabled = entries.filter(([, config]) => config.disabled === true).map(([server]) => server);
    const servers = entries.filter(([, config]) => config.disabled !== true).map(([server, { disabled: _, ...config }]) =>
      [server, { ...config, ...settingsFor(config, topLevel) } as ServerConfig] as const
    );
    const detail = toolbox.openDetail ?? openDetail ?? DEFAULT_OPEN_DETAIL;
    const { codeMode: own, ...rest } = toolbox;
    const limits = codeModeLimits(own ?? codeMode);
    return [name, {
      ...rest,
      openDetail: detail,
      ...(limits && { codeMode: limits }),
      mcpServers: Object.fromEntries(servers),
      ...(disabled.length > 0 && { disabledServers: disabled }),
    }] as const;
  });
  // serve's grants name toolboxes: checked once the toolboxes are known good.
  const serve = serveEntries && resolveServe(serveEntries, Object.keys(toolboxes));
  if (serve && serve.problems.length > 0) throw ConfigError.of(serve.problems, source);
  return {
    toolboxes: Object.fromEntries(resolved),
    ...(serve && { serve: serve.serve }),
    ...(auditLog !== undefined && { auditLog }),
    ...(auditArguments !== undefined && { auditArguments }),
    ...((toolSearch === true || typeof toolSearch === "object") && { toolSearch }),
    ...(telemetry !== undefined && { telemetry }),
  };
}

interface Located {
  path: PathSegment[];
  message: string;
  unknownKey: boolean;
  missingKey: boolean;
}

function describeIssues(data: unknown, issues: readonly v.BaseIssue<unknown>[], source?: string): string[] {
  const located = issues.map(locate);
  // A misspelt key is reported rather than the required key it replaces.
  const withUnknown = new Set(located.filter((issue) => issue.unknownKey).map((issue) => pathKey(issue.path)));
  let kept = located.filter((issue) => !(issue.missingKey && withUnknown.has(pathKey(issue.path.slice(0, -1)))));
  const shape = clientShape(data);
  if (shape) {
    // The client's keys are the whole point of the advice, not problems of their own.
    kept = kept.filter((issue) => !(issue.path.length === 0 && issue.unknownKey));
    return [clientShapeAdvice(shape, source), ...kept.filter((issue) => issue.path[0] !== "toolboxes").map(text)];
  }
  return kept.map(text);
}

function locate(issue: v.BaseIssue<unknown>): Located {
  const path = (issue.path ?? []).map((item) => item.key as PathSegment);
  const unknownKey = issue.type === "strict_object" && issue.expected === "never";
  const missingKey = issue.type === "strict_object" && !unknownKey && issue.input === undefined;
  // An unknown key is reported at the object that holds it.
  return { path: unknownKey ? path.slice(0, -1) : path, message: issue.message, unknownKey, missingKey };
}

const text = (issue: Located) => invalidAt(issue.path, issue.message);
const pathKey = (path: readonly PathSegment[]) => JSON.stringify(path);

/** "mcpServers" (Claude Desktop, Cursor, ...) or "servers" (VS Code) where "toolboxes" should be. */
function clientShape(data: unknown): string | undefined {
  if (typeof data !== "object" || data === null || Array.isArray(data) || Object.hasOwn(data, "toolboxes")) return;
  return ["mcpServers", "servers"].find((key) => Object.hasOwn(data, key));
}

function clientShapeAdvice(key: string, source?: string): string {
  const from = source === undefined ? "PATH" : `'${source}'`;
  return `Invalid configuration: missing key 'toolboxes' (this file has "${key}", as an MCP client's ` +
    `configuration does); expected {"toolboxes": {"NAME": {"description": "...", "mcpServers": {...}}}}; ` +
    `convert such a file with: mcp-workbench init --from ${from}`;
}

/** true: every default; an object: its limits over the defaults; false or absent: off. */
function codeModeLimits(given: boolean | Partial<CodeModeLimits> | undefined): CodeModeLimits | undefined {
  if (given === undefined || given === false) return undefined;
  if (given === true) return { ...DEFAULT_CODE_MODE };
  const pick = <K extends keyof CodeModeLimits>(key: K) => given[key] ?? DEFAULT_CODE_MODE[key];
  return { timeoutMs: pick("timeoutMs"), memoryMiB: pick("memoryMiB"), maxCalls: pick("maxCalls"), maxOutputBytes: pick("maxOutputBytes") };
}

type GivenSettings = { [K in keyof ServerSettings]?: ServerSettings[K] };

/** Each setting from the server, else from the top of the file, else the default. */
function settingsFor(server: GivenSettings, topLevel: GivenSettings): ServerSettings {
  const pick = <K extends keyof ServerSettings>(key: K): ServerSettings[K] => server[key] ?? topLevel[key] ?? DEFAULT_SETTINGS[key];
  return {
    connectTimeoutMs: pick("connectTimeoutMs"),
    callTimeoutMs: pick("callTimeoutMs"),
    maxCallTimeMs: pick("maxCallTimeMs"),
    maxMessageBytes: pick("maxMessageBytes"),
    inheritEnv: pick("inheritEnv"),
    validateArguments: pick("validateArguments"),
    idleTimeoutMs: pick("idleTimeoutMs"),
    roots: pick("roots"),
    maxResultTokens: pick("maxResultTokens"),
    pin: pick("pin"),
    confirmMaxChars: pick("confirmMaxChars"),
  };
}
