/**
 * Reads the servers an MCP client already has, for `mcp-workbench init --from`: from every place
 * the client keeps them (Claude Code's user, project and local scopes; Cursor's global and project
 * files), merged as the client merges them, with the editors' variables translated.
 */
import type { Platform } from "../platform/types.ts";
import { resolveConfigPath } from "../config/index.ts";
import type { Places } from "../config/user-file.ts";
import { messageOf } from "../protocol/errors.ts";
import {
  type ClientName,
  CLIENTS,
  clientSources,
  convertEntry,
  projectKey,
  serversKey,
  type ServerSource,
  stripJsonComments,
} from "./clients.ts";
import { inputsOf, type InputVariable, VariableTranslator } from "./init-variables.ts";
import { type SelfContext, workbenchEntry } from "./init-self.ts";
import { WORKBENCH_SERVER } from "../config/schema.ts";

/** What was found in the client's files: servers in file order, and notes for the user. */
export interface Imported {
  /** The client whose shape the files have (a file given by path: the shape guessed from its keys). */
  client: ClientName;
  /** Where the servers came from, for the toolbox's description: the client named, or the file's path as given. */
  source: string;
  files: string[];
  servers: Record<string, Record<string, unknown>>;
  /** The scope each server came from, for a client with several. */
  scopes: Record<string, string>;
  /** The file each server's imported entry came from. */
  origins: Record<string, string>;
  /** The `${input:ID}` of VS Code, now environment variables the user must set. */
  inputs: InputVariable[];
  notes: string[];
  /** The client's entries that are this workbench: skipped, named for the steps that follow. */
  ours: { name: string; file: string; scope?: string; config?: string }[];
}

export class InitError extends Error {}
/** A file named by the user is not there. */
class NoSuchFile extends InitError {}

type Json = Record<string, unknown>;

/** A client file read, with the source (scope) it was read for. */
type Found = { source: ServerSource; data: Json };

/** How each file's entries are read: in the client's shape, under its key, with its variables translated. */
interface ImportContext {
  client: ClientName | undefined;
  shape: ClientName;
  key: "servers" | "mcpServers";
  places: Places;
  self: SelfContext | undefined;
  translator: VariableTranslator;
  /** The first source's file (Claude Code's ~/.claude.json, for its "disabledMcpjsonServers"). */
  first: { file: string; data: Json | undefined };
}

/** What the import gathers, file after file, for Imported. */
interface Gathered {
  servers: Imported["servers"];
  scopes: Imported["scopes"];
  origins: Imported["origins"];
  notes: string[];
  ours: Imported["ours"];
  files: Set<string>;
}

/** `project` is the folder given with --project, if any. */
export async function importServers(
  platform: Platform,
  from: string,
  places: Places,
  project?: string,
  self?: SelfContext,
): Promise<Imported> {
  const client = (CLIENTS as readonly string[]).includes(from) ? from as ClientName : undefined;
  const named = client === undefined ? resolveConfigPath({ flag: from, env: {}, cwd: places.cwd }) : undefined;
  const sources: ServerSource[] = client ? clientSources(client, places, project ?? places.cwd) : [{ file: named! }];
  const { texts, found } = await readSources(platform, from, client, sources);
  // A file given by path is read in the shape it has: VS Code's "servers", else "mcpServers".
  const shape = client ?? (found[0].data.servers !== undefined && found[0].data.mcpServers === undefined ? "vscode" : "claude-desktop");
  const key = serversKey(shape);
  const translator = new VariableTranslator({
    home: places.home,
    workspace: project ?? (named ? workspaceOf(named, places.cwd) : places.cwd),
    separator: places.os === "windows" ? "\\" : "/",
    inputs: new Map(found.flatMap(({ data }) => [...inputsOf(data)])),
  });
  const first = { file: sources[0].file, data: texts.get(sources[0].file) };
  const context: ImportContext = { client, shape, key, places, self, translator, first };
  const gathered: Gathered = { servers: {}, scopes: {}, origins: {}, notes: [], ours: [], files: new Set<string>() };
  for (const { source, data } of found) await importFile(context, gathered, source, data);
  const { servers, scopes, origins, notes, ours, files } = gathered;
  if (Object.keys(servers).length === 0 && ours.length === 0) {
    const read = [...new Set(found.map(({ source }) => `'${source.file}'`))].join(", ");
    // The servers Claude Code keeps for other folders are the likely ones the user meant.
    const elsewhere = notes.find((note) => note.startsWith("Claude Code also keeps"))?.replace(" also ", " ");
    throw new InitError(`No servers found in ${read} (under "${key}")${elsewhere ? `; ${elsewhere}` : ""}`);
  }
  return { client: shape, source: client ?? from, files: [...files], servers, scopes, origins, inputs: translator.inputs, notes, ours };
}

/** Each source's file read once (scopes may share one), and the sources whose file is there; none found is an error. */
async function readSources(
  platform: Platform,
  from: string,
  client: ClientName | undefined,
  sources: ServerSource[],
): Promise<{ texts: Map<string, Json | undefined>; found: Found[] }> {
  const texts = new Map<string, Json | undefined>();
  const found: Found[] = [];
  for (const source of sources) {
    if (!texts.has(source.file)) {
      texts.set(
        source.file,
        await readClientFile(platform, source.file, client === undefined).catch((error) => {
          // A bare word that names no file was meant as a client's name.
          if (client === undefined && error instanceof NoSuchFile && !/[\\/.]/.test(from)) {
            throw new InitError(`Unknown client '${from}': expected ${CLIENTS.map((name) => `'${name}'`).join(", ")} or a file's path`);
          }
          throw error;
        }),
      );
    }
    const data = texts.get(source.file);
    if (data) found.push({ source, data });
  }
  if (found.length === 0) {
    const looked = [...texts.keys()].map((file) => `'${file}'`).join(", ");
    throw new InitError(`No ${from} configuration found (looked at ${looked}); give its path: --from PATH`);
  }
  return { texts, found };
}

/** One source's servers, each entry imported; a variable with no value outside the editor is an error that names the file. */
async function importFile(context: ImportContext, gathered: Gathered, source: ServerSource, data: Json): Promise<void> {
  const { key, places, translator } = context;
  if (data.toolboxes !== undefined) throw new InitError(`'${source.file}' is already a workbench configuration`);
  const entries = source.project === undefined ? data[key] : localServers(data, source.project, places.os, gathered.notes);
  if (entries === undefined) return;
  if (typeof entries !== "object" || entries === null || Array.isArray(entries)) {
    const where = source.project === undefined ? `"${key}"` : `the "${key}" of project '${source.project}'`;
    throw new InitError(`Invalid client configuration '${source.file}': ${where} is not an object of servers`);
  }
  gathered.files.add(source.file);
  const before = translator.problems.length;
  // Claude Code keeps the .mcp.json servers the user turned off in ~/.claude.json, by project.
  const off = source.scope === "project" && context.client === "claude-code"
    ? disabledProjectServers(context.first.data, source.file, places.os)
    : [];
  for (const [name, entry] of Object.entries(entries)) await importEntry(context, gathered, source, name, entry, off);
  if (translator.problems.length > before) {
    const problems = translator.problems.slice(before);
    throw new InitError(
      problems.length === 1 ? `${problems[0]}; change it in '${source.file}' (nothing was written)` : [
        `${problems.length} variables have no value outside the editor; change them in '${source.file}' (nothing was written):`,
        ...problems.map((problem) => `  - ${problem}`),
      ].join("\n"),
    );
  }
}

/** One server entry, converted and translated, unless it is left out; `off` names those the user turned off. */
async function importEntry(
  context: ImportContext,
  gathered: Gathered,
  source: ServerSource,
  name: string,
  entry: unknown,
  off: string[],
): Promise<void> {
  if (await skipped(context, gathered, source, name, entry)) return;
  const { servers, scopes, origins, notes } = gathered;
  const { server, leftOut, toolsOff } = convertEntry(entry as Json);
  if (off.includes(name)) server.disabled = true;
  if (server.disabled === true) {
    const why = off.includes(name)
      ? `'${context.first.file}' lists it in "disabledMcpjsonServers"`
      : `'${source.file}' has "disabled": true`;
    notes.push(`Server '${name}' is imported disabled (${why}): the workbench does not start it; delete its "disabled" key to use it`);
  }
  notes.push(...entryNotes(name, leftOut, toolsOff));
  if (Object.hasOwn(servers, name) && source.scope !== undefined) {
    // The other stays where it is (the client may start it elsewhere): it is not among the entries to remove.
    const kept = origins[name] !== source.file ? `; the ${scopes[name]} one is left as it is in '${origins[name]}'` : "";
    const which = `the ${source.scope} entry is imported, as ${context.shape} uses it`;
    notes.push(`Server '${name}' is also in the ${scopes[name]} scope: ${which}${kept}`);
  }
  servers[name] = context.translator.server(name, server);
  origins[name] = source.file;
  if (source.scope !== undefined) scopes[name] = source.scope;
}

/** Whether the entry is skipped (not an object, this workbench, or named as the workbench's own server), noting why. */
async function skipped(context: ImportContext, gathered: Gathered, source: ServerSource, name: string, entry: unknown): Promise<boolean> {
  const { notes } = gathered;
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
    notes.push(`Left out server '${name}': its entry is not an object`);
    return true;
  }
  const ours = context.self && await workbenchEntry(entry as Json, context.self);
  if (ours !== undefined) {
    notes.push(`Skipped '${name}' in '${source.file}': it is this workbench (${ours.why}), not a server to import`);
    gathered.ours.push({
      name,
      file: source.file,
      ...(source.scope !== undefined && { scope: source.scope }),
      ...(ours.config !== undefined && { config: ours.config }),
    });
    return true;
  }
  if (name === WORKBENCH_SERVER) {
    notes.push(
      `Left out server '${name}' of '${source.file}': the name is the workbench's own (read_result); give it another name there ` +
        `to import it`,
    );
    return true;
  }
  return false;
}

/** What an entry's import changed: the keys left out, the tools the user turned off kept off. */
function entryNotes(name: string, leftOut: string[], toolsOff: string[]): string[] {
  const quoted = (names: string[]) => names.map((one) => `'${one}'`).join(", ");
  const what = leftOut.length === 1 ? "not a workbench setting" : "not workbench settings";
  return [
    ...(toolsOff.length > 0
      ? [
        `Server '${name}': ${quoted(toolsOff)} stay${toolsOff.length === 1 ? "s" : ""} off ("disabledTools"), written as toolFilters ` +
        `${JSON.stringify(toolsOff.map((tool) => `!${tool}`))}; delete an entry to offer that tool`,
      ]
      : []),
    ...(leftOut.length > 0 ? [`Left out of server '${name}': ${quoted(leftOut)} (${what})`] : []),
  ];
}

/** The names in `projects[<folder of .mcp.json>].disabledMcpjsonServers` of ~/.claude.json. */
function disabledProjectServers(claudeJson: Json | undefined, mcpJson: string, os: string): string[] {
  const projects = claudeJson?.projects;
  if (typeof projects !== "object" || projects === null || Array.isArray(projects)) return [];
  const key = projectKey(projects as Json, mcpJson.replace(/[\\/]\.mcp\.json$/, ""), os);
  const names = key === undefined ? undefined : ((projects as Json)[key] as Json | null)?.disabledMcpjsonServers;
  return Array.isArray(names) ? names.filter((name): name is string => typeof name === "string") : [];
}

/**
 * Claude Code's local scope: `projects[<folder>].mcpServers` of ~/.claude.json. Other folders' servers
 * are named in a note, since they are one --project away.
 */
function localServers(data: Json, folder: string, os: string, notes: string[]): unknown {
  const projects = data.projects;
  if (typeof projects !== "object" || projects === null || Array.isArray(projects)) return undefined;
  const key = projectKey(projects as Json, folder, os);
  const others = Object.entries(projects as Json)
    .filter(([path, entry]) => path !== key && hasServers((entry as Json | null)?.mcpServers))
    .map(([path]) => `'${path}'`);
  if (others.length > 0) {
    const shown = others.length > 3 ? [...others.slice(0, 3), `${others.length - 3} more`] : others;
    notes.push(`Claude Code also keeps servers for ${shown.join(", ")}: import those with --project PATH`);
  }
  return key === undefined ? undefined : ((projects as Json)[key] as Json | null)?.mcpServers;
}

function hasServers(value: unknown): boolean {
  return typeof value === "object" && value !== null && Object.keys(value).length > 0;
}

/** The folder a client file given by path was written for: the one holding its .vscode or .cursor, else the current one. */
function workspaceOf(file: string, cwd: string): string {
  const folder = /^(.+)[\\/]\.(?:vscode|cursor)[\\/][^\\/]+$/.exec(file)?.[1];
  return folder ?? cwd;
}

/** The parsed file, or undefined when it is not there (and was not named by the user). */
async function readClientFile(platform: Platform, file: string, named: boolean): Promise<Json | undefined> {
  let text: string;
  try {
    text = await platform.readTextFile(file);
  } catch (error) {
    const missing = (error as Error | undefined)?.name === "NotFound";
    if (missing && !named) return undefined;
    throw new (missing ? NoSuchFile : InitError)(`Cannot read '${file}': ${messageOf(error)}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(stripJsonComments(text.replace(/^\uFEFF/, "")));
  } catch {
    throw new InitError(`Invalid JSON in client configuration '${file}'`);
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new InitError(`Invalid client configuration '${file}': expected a JSON object`);
  }
  return data as Json;
}
