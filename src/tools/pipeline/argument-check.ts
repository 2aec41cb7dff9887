/**
 * The engine of check-arguments.ts: a tool's arguments against its inputSchema, before any call
 * reaches the server: a wrong call then costs one answer that says what to fix, not a server's
 * vaguer error.
 * ajv because the SDK's Client already bundles it (no bytes added to the executable); it is set up
 * on the first check and each tool's validator is compiled on that tool's first call, so neither
 * start-up nor a session that never calls a tool pays for it.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import type { Tool as McpTool } from "../../protocol/sdk.ts";

/** More problems than this are counted, not listed: the schema that follows says the rest. */
const MAX_LISTED = 10;

export type ArgumentCheck = { ok: true } | { ok: false; problems: string[] };

let ajv: Ajv | undefined;
/** null: the schema does not compile, skip it. */
type Compiled = ValidateFunction | null;
/** Per tool object: the lookup of every call after the first. */
const byTool = new WeakMap<McpTool, Compiled>();
/**
 * Per schema text: a restarted server lists new tool objects with the same schemas, which then
 * are not compiled again (and ajv, which keeps every schema it compiled, does not grow).
 */
const bySchema = new Map<string, Compiled>();

export function checkArguments(tool: McpTool, args: Record<string, unknown>): ArgumentCheck {
  const validate = validatorFor(tool);
  if (!validate || validate(args)) return { ok: true };
  const problems = (validate.errors ?? []).map(describeError);
  const unique = [...new Set(problems)];
  if (unique.length > MAX_LISTED) {
    return { ok: false, problems: [...unique.slice(0, MAX_LISTED), `and ${unique.length - MAX_LISTED} more`] };
  }
  return { ok: false, problems: unique };
}

let compilations = 0;
/** How many times a schema has been compiled (or found not to compile): for tests. */
export const compiledSchemas = () => compilations;

function validatorFor(tool: McpTool): Compiled {
  const known = byTool.get(tool);
  if (known !== undefined) return known;
  const text = JSON.stringify(tool.inputSchema);
  const validate = bySchema.has(text) ? bySchema.get(text)! : compile(tool.inputSchema);
  bySchema.set(text, validate);
  byTool.set(tool, validate);
  return validate;
}

function compile(schema: McpTool["inputSchema"]): Compiled {
  compilations++;
  try {
    // validateSchema off: a `$schema` naming another draft (2020-12) then compiles with the
    // draft-07 keywords, which are the ones models meet. strict off: unknown keywords are ignored.
    // verbose: the failing value's type for "got ..." (never the value itself, which may be a secret).
    ajv ??= new Ajv({ strict: false, allErrors: true, verbose: true, validateSchema: false, validateFormats: false, logger: false });
    return ajv.compile(schema);
  } catch {
    // A schema ajv cannot compile (a dangling $ref) is the server's problem: let the call through.
    return null;
  }
}

/** `arguments.filter.limit: expected integer, got string`. */
function describeError(error: ErrorObject): string {
  const path = argumentPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "type":
      return `${path}: expected ${String(params.type).replaceAll(",", " or ")}, got ${jsonType(error.data)}`;
    case "required": {
      const name = String(params.missingProperty);
      const expected = propertyType(error.parentSchema, name);
      return `${childPath(path, name)}: required${expected ? ` (expected ${expected})` : ""}`;
    }
    case "additionalProperties":
      return `${childPath(path, String(params.additionalProperty))}: not an argument of this tool`;
    case "enum":
      return `${path}: expected one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "const":
      return `${path}: expected ${JSON.stringify(params.allowedValue)}`;
    default:
      return `${path}: ${error.message ?? "is invalid"}`;
  }
}

/** `/filter/tags/0` becomes `arguments.filter.tags[0]`. */
function argumentPath(pointer: string): string {
  if (pointer === "") return "arguments";
  return pointer.slice(1).split("/").reduce((path, raw) => {
    const segment = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    return /^\d+$/.test(segment) ? `${path}[${segment}]` : childPath(path, segment);
  }, "arguments");
}

const childPath = (path: string, name: string) => /^[A-Za-z_$][\w$]*$/.test(name) ? `${path}.${name}` : `${path}[${JSON.stringify(name)}]`;

function propertyType(schema: unknown, name: string): string | undefined {
  const property = (schema as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties?.[name];
  const type = property?.type;
  if (typeof type === "string") return type;
  return Array.isArray(type) ? type.join(" or ") : undefined;
}

/** The JSON type of a value: what the model sent, named without quoting it. */
function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}
