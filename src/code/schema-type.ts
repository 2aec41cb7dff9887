/**
 * A JSON Schema as a TypeScript type, for code mode's declarations: objects (required and optional
 * properties, additionalProperties), arrays and tuples, enum and const, unions (anyOf, oneOf, a list
 * of types, OpenAPI's nullable), allOf as an intersection, and $ref to the schema's own $defs or
 * definitions. Anything else, or deeper than MAX_DEPTH, is `unknown`: a type that is too loose
 * costs the model a check, one that is wrong costs it a failed call.
 */

type Schema = Record<string, unknown>;

const MAX_DEPTH = 12;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property or method name as TypeScript takes it: bare when an identifier, else quoted. */
export function propertyName(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** A doc comment for `text` at `indent`; `*\/` in the text cannot close it. Empty when there is no text. */
export function docComment(text: unknown, indent: string): string {
  if (typeof text !== "string" || text.trim() === "") return "";
  const lines = text.trim().replaceAll("*/", "*\\/").split(/\r?\n/).map((line) => line.trimEnd());
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((line) => `${indent} *${line === "" ? "" : ` ${line}`}`).join("\n")}\n${indent} */\n`;
}

/**
 * The type of `schema`, whose $refs resolve against `root`; `indent` is where a multi-line object
 * starts. With `docs`, each property's description is a doc comment above it (input types: what
 * the model must fill in); without, the type is the shape alone (output types).
 */
export function schemaType(schema: unknown, options: { root?: unknown; indent?: string; docs?: boolean } = {}): string {
  return new Converter(options.root ?? schema, options.docs ?? true).type(schema, options.indent ?? "", 0);
}

/** True when the object schema requires no property: its argument may be left out. */
export function requiresNothing(schema: unknown): boolean {
  return !isSchema(schema) || !Array.isArray(schema.required) || schema.required.length === 0;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

class Converter {
  /** The $refs being expanded: one met again is a cycle, typed unknown. */
  readonly #expanding = new Set<string>();

  constructor(readonly root: unknown, readonly docs: boolean) {}

  type(schema: unknown, indent: string, depth: number): string {
    if (schema === true || schema === undefined) return "unknown";
    if (schema === false) return "never";
    if (!isSchema(schema) || depth > MAX_DEPTH) return "unknown";
    const base = this.#base(schema, indent, depth);
    return schema.nullable === true && base !== "unknown" ? union([base, "null"]) : base;
  }

  #base(schema: Schema, indent: string, depth: number): string {
    if (typeof schema.$ref === "string") return this.#ref(schema.$ref, indent, depth);
    if ("const" in schema) return literal(schema.const);
    if (Array.isArray(schema.enum)) return schema.enum.length === 0 ? "never" : union(schema.enum.map(literal));
    const members = schema.anyOf ?? schema.oneOf;
    if (Array.isArray(members) && members.length > 0) {
      const own = withoutKeys(schema, ["anyOf", "oneOf", "description", "title", "default", "examples"]);
      const alternatives = union(members.map((member) => this.type(member, indent, depth + 1)));
      // Keywords beside anyOf (often a `type`) hold for every member: they narrow nothing we write.
      return Object.keys(own).length === 0 ? alternatives : intersection([this.type(own, indent, depth + 1), alternatives]);
    }
    if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
      const own = withoutKeys(schema, ["allOf", "description", "title", "default", "examples"]);
      const parts = [...schema.allOf, ...(Object.keys(own).length > 0 ? [own] : [])];
      return intersection(parts.map((part) => this.type(part, indent, depth + 1)));
    }
    const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [inferredType(schema)] : [schema.type];
    return union(types.map((type) => this.#ofType(type, schema, indent, depth)));
  }

  #ofType(type: unknown, schema: Schema, indent: string, depth: number): string {
    switch (type) {
      case "string":
        return "string";
      case "number":
      case "integer":
        return "number";
      case "boolean":
        return "boolean";
      case "null":
        return "null";
      case "array":
        return this.#array(schema, indent, depth);
      case "object":
        return this.#object(schema, indent, depth);
      default:
        return "unknown";
    }
  }

  #array(schema: Schema, indent: string, depth: number): string {
    const tuple = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined;
    if (tuple) return `[${tuple.map((item) => this.type(item, indent, depth + 1)).join(", ")}]`;
    const item = this.type(schema.items, indent, depth + 1);
    return /^[\w.]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
  }

  #object(schema: Schema, indent: string, depth: number): string {
    const properties = isSchema(schema.properties) ? Object.entries(schema.properties) : [];
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    // patternProperties without additionalProperties: keys we cannot name, of any value.
    const extra = schema.additionalProperties !== undefined
      ? schema.additionalProperties
      : schema.patternProperties !== undefined
      ? true
      : undefined;
    if (properties.length === 0) {
      if (extra === false) return "{}";
      return `Record<string, ${extra === undefined || extra === true ? "unknown" : this.type(extra, indent, depth + 1)}>`;
    }
    const inner = `${indent}  `;
    const types = properties.map(([, property]) => this.type(property, inner, depth + 1));
    const described = (property: unknown) => this.docs && isSchema(property) && typeof property.description === "string";
    // One line unless a property has a doc comment or a type of several lines.
    const multiline = properties.some(([, property], i) => described(property) || types[i].includes("\n"));
    const members = properties.map(([name, property], i) => {
      const member = `${propertyName(name)}${required.has(name) ? "" : "?"}: ${types[i]};`;
      if (!multiline) return member;
      return `${this.docs && isSchema(property) ? docComment(property.description, inner) : ""}${inner}${member}`;
    });
    // Extra keys: any value, as TypeScript asks an index signature to admit every property's type too.
    if (extra !== undefined && extra !== false) members.push(multiline ? `${inner}[key: string]: unknown;` : "[key: string]: unknown;");
    if (!multiline) return `{ ${members.join(" ").replace(/;$/, "")} }`;
    return `{\n${members.join("\n")}\n${indent}}`;
  }

  #ref(ref: string, indent: string, depth: number): string {
    const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
    if (!match || this.#expanding.has(ref) || !isSchema(this.root)) return "unknown";
    const definitions = this.root[match[1]];
    const name = match[2].replaceAll("~1", "/").replaceAll("~0", "~");
    if (!isSchema(definitions) || !Object.hasOwn(definitions, name)) return "unknown";
    this.#expanding.add(ref);
    try {
      return this.type(definitions[name], indent, depth + 1);
    } finally {
      this.#expanding.delete(ref);
    }
  }
}

/** A schema without `type` that still says what it is by its keywords. */
function inferredType(schema: Schema): string | undefined {
  if ("properties" in schema || "additionalProperties" in schema || "required" in schema) return "object";
  if ("items" in schema || "prefixItems" in schema) return "array";
  return undefined;
}

function literal(value: unknown): string {
  if (value === null || typeof value === "string" || typeof value === "boolean") return JSON.stringify(value);
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return "unknown";
}

/** `A | B`, each once; unknown absorbs the rest. */
function union(types: string[]): string {
  const unique = [...new Set(types)];
  if (unique.includes("unknown")) return "unknown";
  const kept = unique.length > 1 ? unique.filter((type) => type !== "never") : unique;
  return kept.join(" | ");
}

/** `A & B`, unions in parentheses; unknown is left out as it narrows nothing. */
function intersection(types: string[]): string {
  const kept = [...new Set(types)].filter((type) => type !== "unknown");
  if (kept.length === 0) return "unknown";
  if (kept.length === 1) return kept[0];
  return kept.map((type) => (topLevelUnion(type) ? `(${type})` : type)).join(" & ");
}

/** True when `type` has a `|` outside brackets, braces, parentheses and quotes. */
function topLevelUnion(type: string): boolean {
  let nesting = 0;
  let quoted = false;
  for (let i = 0; i < type.length; i++) {
    const char = type[i];
    if (quoted) {
      if (char === "\\") i++;
      else if (char === '"') quoted = false;
    } else if (char === '"') quoted = true;
    else if ("{[(<".includes(char)) nesting++;
    else if ("}])>".includes(char)) nesting--;
    else if (char === "|" && nesting === 0) return true;
  }
  return false;
}

function withoutKeys(schema: Schema, keys: string[]): Schema {
  return Object.fromEntries(Object.entries(schema).filter(([key]) => !keys.includes(key)));
}
