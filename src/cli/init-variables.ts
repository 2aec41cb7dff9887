/**
 * The editors' own variables in imported server entries, turned into what the workbench's
 * configuration understands (`${NAME}` and `${NAME:-default}`, see src/config/expand.ts), for
 * `mcp-workbench init`. VS Code and Cursor resolve `${env:X}`, `${userHome}`, `${workspaceFolder}`,
 * `${input:ID}` and others before they start a server; copied as they are, the file would not load.
 */
import { formatPath, type PathSegment } from "../config/path.ts";

/** What the editor's variables stand for here: the folders init was run for. */
export interface VariableContext {
  home: string;
  /** The absolute folder the client file was read for: `${workspaceFolder}`. */
  workspace: string;
  /** `${pathSeparator}` and `${/}`. */
  separator: string;
  /** VS Code's "inputs" array, by id: what the editor would have asked the user for. */
  inputs: ReadonlyMap<string, InputEntry>;
}

/** One entry of VS Code's "inputs": its description and default, and the entry as written. */
export interface InputEntry {
  description?: string;
  default?: string;
  definition?: Record<string, unknown>;
}

/** One `${input:ID}`, now an environment variable the user must set. */
export interface InputVariable {
  id: string;
  name: string;
  description?: string;
  servers: string[];
  /** The "inputs" entry that defines it, as written (none when no file defines it). */
  definition?: Record<string, unknown>;
}

/** The editors' names that mean something only inside the editor (the open file, a selection...). */
const EDITOR_ONLY = new Set([
  "file", "fileWorkspaceFolder", "relativeFile", "relativeFileDirname", "fileBasename", "fileBasenameNoExtension",
  "fileDirname", "fileDirnameBasename", "fileExtname", "cwd", "lineNumber", "selectedText", "execPath", "defaultBuildTask",
]);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// Our own forms (also Claude Code's), kept as they are: `${NAME}` and `${NAME:-default}`.
const OURS = /^[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?$/;

/** Translates the variables of every server's expanded fields; `problems` name the server and field. */
export class VariableTranslator {
  readonly problems: string[] = [];
  private readonly byId = new Map<string, InputVariable>();

  constructor(private readonly context: VariableContext) {}

  /** The `${input:ID}` seen, in order of first use. */
  get inputs(): InputVariable[] {
    return [...this.byId.values()];
  }

  /** A copy of the entry with command, args, env and header values, cwd and url translated. */
  server(name: string, entry: Record<string, unknown>): Record<string, unknown> {
    const copy = { ...entry };
    const text = (value: unknown, path: PathSegment[]) => typeof value === "string" ? this.text(value, name, path) : value;
    for (const key of ["command", "cwd", "url"]) if (key in copy) copy[key] = text(copy[key], [key]);
    if (Array.isArray(copy.args)) copy.args = copy.args.map((arg, index) => text(arg, ["args", index]));
    for (const key of ["env", "headers"]) {
      const record = copy[key];
      if (typeof record !== "object" || record === null || Array.isArray(record)) continue;
      copy[key] = Object.fromEntries(Object.entries(record).map(([field, value]) => [field, text(value, [key, field])]));
    }
    return copy;
  }

  private text(value: string, server: string, path: PathSegment[]): string {
    return value.replace(/\$\{([^}]*)\}/g, (reference, inner: string) => {
      const translated = this.variable(inner, server);
      if (translated !== undefined) return translated;
      this.problems.push(`Server '${server}' uses ${reference} at ${formatPath(path)}: it has no value outside the editor`);
      return reference;
    });
  }

  /** The value of an editor variable that is the same wherever the workbench runs: folders and separators. */
  private constant(inner: string): string | undefined {
    const { home, workspace, separator } = this.context;
    if (inner === "userHome") return home;
    if (inner === "workspaceFolder") return workspace;
    if (inner === "workspaceFolderBasename") return workspace.split(/[\\/]/).filter(Boolean).at(-1) ?? workspace;
    if (inner === "pathSeparator" || inner === "/") return separator;
    return undefined;
  }

  /** The text for one variable (what is between the braces), or undefined when it has no meaning here. */
  private variable(inner: string, server: string): string | undefined {
    const constant = this.constant(inner);
    if (constant !== undefined) return constant;
    if (inner.startsWith("env:")) return NAME.test(inner.slice(4)) ? `\${${inner.slice(4)}}` : undefined;
    if (inner.startsWith("input:")) return this.input(inner.slice(6), server);
    return OURS.test(inner) && !EDITOR_ONLY.has(inner) ? `\${${inner}}` : undefined;
  }

  /** `${input:api-key}` becomes `${API_KEY}` (with the input's default, when it has one). */
  private input(id: string, server: string): string {
    let variable = this.byId.get(id);
    if (variable === undefined) {
      const entry = this.context.inputs.get(id);
      const definition = entry?.definition;
      variable = { id, name: this.nameFor(id), description: entry?.description, servers: [], ...(definition && { definition }) };
      this.byId.set(id, variable);
    }
    if (!variable.servers.includes(server)) variable.servers.push(server);
    // The editor's variables in a default are given their value here (`${userHome}/data`); one that
    // still holds a reference or a brace would nest or end it early, so it is left out (the variable is then required).
    const given = this.context.inputs.get(id)?.default;
    const fallback = given?.replace(/\$\{([^}]*)\}/g, (reference, inner: string) => this.constant(inner) ?? reference);
    return fallback === undefined || /[}$]/.test(fallback) ? `\${${variable.name}}` : `\${${variable.name}:-${fallback}}`;
  }

  /** Upper case, anything but letters and digits as `_`; a second id with the same name gets `_2`. */
  private nameFor(id: string): string {
    const base = id.replace(/[^A-Za-z0-9]+/g, "_").replace(/^_+|_+$/g, "").toUpperCase();
    const name = base === "" || /^\d/.test(base) ? `INPUT_${base}` : base;
    const taken = new Set([...this.byId.values()].map((variable) => variable.name));
    let unique = name;
    for (let n = 2; taken.has(unique); n++) unique = `${name}_${n}`;
    return unique;
  }
}

/** VS Code's "inputs" array by id; entries without a string id are skipped. */
export function inputsOf(data: Record<string, unknown>): Map<string, InputEntry> {
  const inputs = new Map<string, InputEntry>();
  if (!Array.isArray(data.inputs)) return inputs;
  for (const input of data.inputs) {
    if (typeof input !== "object" || input === null || typeof input.id !== "string") continue;
    inputs.set(input.id, {
      description: typeof input.description === "string" ? input.description : undefined,
      default: typeof input.default === "string" && input.password !== true ? input.default : undefined,
      // Printed in the block to paste: a password's default is a secret, and stays in the file it is in.
      definition: Object.fromEntries(Object.entries(input).filter(([key]) => key !== "default" || input.password !== true)),
    });
  }
  return inputs;
}
